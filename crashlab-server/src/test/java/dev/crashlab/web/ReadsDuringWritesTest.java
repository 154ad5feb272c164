package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.bundle.Upload;
import dev.crashlab.reader.FactsJson;
import dev.crashlab.reader.service.ArtifactFactsRow;
import dev.crashlab.testing.Ready;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A report opens while its bundle's facts are being written: the bundle, its diagnosis and its facts answer within
 * 200 ms (the fastest of three tries, on top of the same read of a twin bundle that no writer holds, timed in turns
 * with it) from what is stored, with the reading's progress, while a transaction holds the bundle's row lock and
 * rewrites its facts rows (what the background reading's store does, held open here for seconds). Before, the
 * diagnosis and facts waited for the reading (up to {@code crashlab.ingest.read-wait}, 30 s).
 */
@QuarkusTest
@Tag("persistence")
class ReadsDuringWritesTest {

    static final long BOUND_MILLIS = 200;
    /** How long the writer holds its transaction open at most (it ends as soon as the reads are done). */
    static final long HOLD_MILLIS = 60_000;
    /**
     * Tries per read, the fastest counting: a read that waits for the writer waits on every try while the lock is held,
     * while a try slowed by a busy CPU is not slow on all three.
     */
    static final int TRIES = 3;

    @Inject
    BundleService bundles;

    @Test
    void aBundleReadAgainAnswersWithWhatIsStoredWhileItsFactsAreRewritten() throws Exception {
        long id = upload("read again " + System.nanoTime());
        long twin = upload("its twin, never written to " + System.nanoTime());
        Ready.await(id);
        Ready.await(twin);
        warmUp(id);
        warmUp(twin);
        withFactsBeingWritten(id, () -> {
            Response bundle = timedGet(id, twin, "");
            assertThat(bundle.statusCode()).isEqualTo(200);
            Response diagnosis = timedGet(id, twin, "/diagnosis");
            assertThat(diagnosis.statusCode()).isEqualTo(200);
            assertThat(diagnosis.jsonPath().getList("hypotheses")).as("the stored diagnosis").isNotEmpty();
            assertThat(diagnosis.jsonPath().getBoolean("recomputed")).isFalse();
            Response facts = timedGet(id, twin, "/facts");
            assertThat(facts.statusCode()).isEqualTo(200);
            assertThat(facts.jsonPath().getList("artifacts")).as("the stored reading").hasSize(1);
            assertThat(facts.jsonPath().getString("status")).isEqualTo("READY");
        });
    }

    @Test
    void aBundleNotReadYetSaysSoAtOnceWithItsProgress() throws Exception {
        long warm = upload("warm " + System.nanoTime());
        Ready.await(warm);
        warmUp(warm);
        // stored but never handed to the background reading: it stays PROCESSING, with nothing read
        long id = storeWithoutReading("not read yet " + System.nanoTime());
        long twin = storeWithoutReading("its twin, never written to " + System.nanoTime());
        withFactsBeingWritten(id, () -> {
            Response bundle = timedGet(id, twin, "");
            assertThat(bundle.statusCode()).isEqualTo(200);
            assertThat(bundle.jsonPath().getString("status")).isEqualTo("PROCESSING");
            for (String path : List.of("/diagnosis", "/facts")) {
                Response r = timedGet(id, twin, path);
                assertThat(r.statusCode()).as(path).isEqualTo(409);
                assertThat(r.jsonPath().getString("type")).as(path).endsWith("bundle-processing");
                assertThat(r.jsonPath().getString("detail")).as(path + ": the progress").contains("0 of 1 files so far");
            }
        });
    }

    /** Runs {@code reads} while another transaction holds the bundle's row lock and rewrites its facts rows, uncommitted. */
    private void withFactsBeingWritten(long id, ThrowingRunnable reads) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        try {
            Future<?> writer = pool.submit(() -> {
                try {
                    QuarkusTransaction.requiringNew().run(() -> {
                        assertThat(bundles.lockRow(id)).isTrue();
                        Bundle b = Bundle.findById(id);
                        ArtifactFactsRow.delete("bundleId", id);
                        ArtifactFactsRow.flush();
                        b.artifacts.forEach(a -> {
                            ArtifactFactsRow row = new ArtifactFactsRow();
                            row.artifactId = a.id;
                            row.bundleId = id;
                            row.readerVersion = 1;
                            row.bytesRead = a.size;
                            row.factsJson = FactsJson.facts(List.of());
                            row.problemsJson = FactsJson.problems(List.of());
                            row.windowJson = FactsJson.window(List.of());
                            row.persist();
                        });
                        ArtifactFactsRow.flush();
                        writing.countDown();
                        try {
                            done.await(HOLD_MILLIS, TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        QuarkusTransaction.setRollbackOnly(); // leaves the bundle as it was
                    });
                } catch (io.quarkus.narayana.jta.QuarkusTransactionException e) {
                    if (!(e.getCause() instanceof jakarta.transaction.RollbackException)) {
                        throw e; // anything but the rollback asked for above
                    }
                }
            });
            if (!writing.await(30, TimeUnit.SECONDS)) {
                writer.get(1, TimeUnit.SECONDS); // says why the writer never got the row
                throw new AssertionError("the writer did not take the bundle's row within 30 s");
            }
            reads.run();
            done.countDown();
            writer.get(60, TimeUnit.SECONDS);
        } finally {
            done.countDown();
            pool.shutdownNow();
        }
    }

    /** The three reads once on a ready bundle, so that the timed ones measure waiting, not a first request's warm-up. */
    private static void warmUp(long id) {
        for (String path : List.of("", "/diagnosis", "/facts")) {
            given().get("/api/bundles/" + id + path).then().statusCode(200);
        }
    }

    /**
     * GETs {@code sub} of bundle {@code id} while the writer holds it, {@link #TRIES} times, each right after the same
     * GET of {@code twin} (a bundle of the same shape that no writer holds); fails unless the fastest try answered within
     * the bound on top of the twin's fastest: what the request costs on this machine at this moment (about 10 ms on an
     * idle one; 100-300 ms when a 2-core machine runs 25 processes), measured in turns so that both see the same load.
     * Returns the held bundle's answer.
     */
    private static Response timedGet(long id, long twin, String sub) {
        String path = "/api/bundles/" + id + sub;
        long best = Long.MAX_VALUE;
        long bestAlone = Long.MAX_VALUE;
        Response r = null;
        for (int i = 0; i < TRIES; i++) {
            long t0 = System.nanoTime();
            given().get("/api/bundles/" + twin + sub);
            long t1 = System.nanoTime();
            r = given().get(path);
            best = Math.min(best, System.nanoTime() - t1);
            bestAlone = Math.min(bestAlone, t1 - t0);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(best);
        long aloneMillis = TimeUnit.NANOSECONDS.toMillis(bestAlone);
        System.out.printf("GET %s: %d ms while the facts are being written, %d ms for its twin with no writer (fastest of %d)%n",
                path, millis, aloneMillis, TRIES);
        assertThat(millis).as("GET " + path + " answered in " + millis + " ms (fastest of " + TRIES
                + ") while the facts are being written; " + aloneMillis + " ms for its twin with no writer")
                .isLessThan(BOUND_MILLIS + aloneMillis);
        return r;
    }

    private static long upload(String marker) {
        byte[] log = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (" + marker + ")\n").getBytes(StandardCharsets.UTF_8);
        int id = given().multiPart("file", "train.log", log, "text/plain").post("/api/bundles").then().statusCode(201)
                .extract().path("id");
        return id;
    }

    private long storeWithoutReading(String marker) throws Exception {
        byte[] log = ("RuntimeError: CUDA out of memory (" + marker + ")\n").getBytes(StandardCharsets.UTF_8);
        Path file = Files.createTempFile("reads-during-writes", ".log");
        try {
            Files.write(file, log);
            String sha = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(log));
            BundleView v = bundles.create("train.log", null, List.of(new Upload("train.log", file, sha)));
            return v.id();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
