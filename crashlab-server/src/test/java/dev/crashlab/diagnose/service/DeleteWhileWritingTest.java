package dev.crashlab.diagnose.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.BundleService;
import dev.crashlab.ingest.BundleIngest;
import dev.crashlab.testing.RivalTransaction;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A bundle deleted while the background reading stores its facts or diagnosis: before, the writer's insert failed on
 * the foreign key (a stack trace in the log for an ordinary delete). Writers lock the bundle's row first, as the
 * delete does, so one waits for the other. Two confirmations of one bundle's cause do too: before, both found no
 * confirmation and the second insert failed on the key.
 */
@QuarkusTest
@Tag("persistence")
class DeleteWhileWritingTest {

    @Inject
    BundleService bundles;

    @Inject
    BundleIngest ingest;

    @Inject
    ResolutionService resolutions;

    @Inject
    dev.crashlab.kb.service.KnowledgeService knowledge;

    @Inject
    DataSource data;

    @Test
    void aDeleteWaitsForTheDiagnosisBeingStoredAndTakesItAlong() throws Exception {
        long id = upload();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            // what DiagnosisService does when it stores a diagnosis: lock the bundle, then write a row that refers to it
            Future<Boolean> writer = pool.submit(() -> QuarkusTransaction.requiringNew().call(() -> {
                boolean found = bundles.lockRow(id);
                locked.countDown();
                assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                BundleDiagnosis.deleteById(id);
                BundleDiagnosis row = new BundleDiagnosis();
                row.bundleId = id;
                row.kbFingerprint = "test";
                row.computedAt = Instant.now();
                row.json = "{}";
                row.persist();
                return found;
            }));
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Boolean> deleter = pool.submit(() -> bundles.delete(id));
            // without the lock the delete is done at once and the writer's insert then fails on the foreign key
            try {
                deleter.get(2, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException waiting) {
                // waiting for the writer, as it should
            }
            release.countDown();
            assertThat(writer.get(60, TimeUnit.SECONDS)).as("the writer found the bundle and stored its row").isTrue();
            assertThat(deleter.get(60, TimeUnit.SECONDS)).as("the delete went ahead after the writer").isTrue();
        } finally {
            pool.shutdownNow();
        }
        BundleDiagnosis left = QuarkusTransaction.requiringNew().call(() -> BundleDiagnosis.<BundleDiagnosis>findById(id));
        assertThat(left).as("taken along with the bundle").isNull();
        given().get("/api/bundles/" + id).then().statusCode(404);
    }

    @Test
    void aWriterAfterTheDeleteFindsNothingToWriteAbout() throws Exception {
        long id = upload();
        assertThat(bundles.delete(id)).isTrue();
        boolean found = QuarkusTransaction.requiringNew().call(() -> bundles.lockRow(id));
        assertThat(found).isFalse();
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(404);
    }

    @Test
    void twoConfirmationsOfOneBundleAtOnceBothSucceedAndTheLaterStays() throws Exception {
        long id = upload();
        var articles = knowledge.current().source().kb().articles();
        String first = articles.get(0).id();
        String second = articles.get(1).id();
        Optional<ResolutionService.Resolution> confirmed;
        try (RivalTransaction rival = RivalTransaction.open(data)) {
            // another confirmation of this bundle (another triager, another server) between its insert and its commit
            rival.run("select id from bundle where id = ? for update", id)
                    .run("insert into bundle_resolution (bundle_id, article_id, note, confirmed_at) values (?, ?, ?, ?)",
                            id, first, "the other", Instant.now());
            confirmed = rival.race(() -> resolutions.confirm(id, second, "this one"));
        }
        assertThat(confirmed).hasValueSatisfying(r -> assertThat(r.confirmed().articleId()).isEqualTo(second));
        BundleResolution stored = QuarkusTransaction.requiringNew().call(() -> BundleResolution.<BundleResolution>findById(id));
        assertThat(stored.articleId).isEqualTo(second);
        assertThat(stored.note).isEqualTo("this one");
    }

    private long upload() {
        byte[] log = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB " + System.nanoTime() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        int id = given().multiPart("file", "train.log", log, "text/plain").post("/api/bundles").then().statusCode(201)
                .extract().path("id");
        ingest.awaitReady(id);
        return id;
    }
}
