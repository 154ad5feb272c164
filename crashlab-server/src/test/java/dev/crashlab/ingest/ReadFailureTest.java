package dev.crashlab.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.crashlab.bundle.BlobStore;
import dev.crashlab.testing.Ready;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 13: a bundle whose reading throws ends {@code FAILED} with the reason in words (it no longer stays
 * {@code PROCESSING} until the next start), keeps its earlier reading, and reads again once the cause is fixed.
 * The failure is a real one: the artifact's blob is taken out of the blob store, so opening it throws.
 */
@QuarkusTest
@Tag("persistence")
class ReadFailureTest {

    @Inject
    BlobStore blobs;

    @Test
    void aReadingThatThrowsEndsFailedWithItsReasonAndCanBeReadAgain() throws Exception {
        byte[] log = ("[2026-11-26 10:00:00] epoch 1 step 10 loss 0.5\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
                + "read-failure test " + System.nanoTime() + "\n").getBytes();
        long id = given().multiPart("file", "train.log", log, "text/plain")
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        Ready.await(id);
        String sha = given().get("/api/bundles/" + id).then().extract().path("artifacts[0].sha256");

        // the blob goes missing (a damaged store): reading the bundle again throws
        Path saved = Files.createTempFile("read-failure", ".blob");
        try (InputStream in = blobs.open(sha)) {
            Files.copy(in, saved, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        assertThat(blobs.delete(sha)).isTrue();
        given().post("/api/bundles/" + id + "/read").then().statusCode(202).body("status", equalTo("PROCESSING"));

        JsonPath failed = awaitNotProcessing(id);
        assertThat(failed.getString("status")).isEqualTo("FAILED");
        assertThat(failed.getString("readError"))
                .contains("CrashLab failed while reading its files")
                .contains("train.log")
                .contains("missing from the blob store")
                .doesNotContain("Exception");
        // the earlier reading stands meanwhile: the facts are served, not a 409 or a 500
        given().get("/api/bundles/" + id + "/facts").then().statusCode(200).body("artifacts.size()", equalTo(1));

        // the cause is fixed (the blob restored): reading it again ends READY, the reason gone
        blobs.putFile(saved, sha);
        given().post("/api/bundles/" + id + "/read").then().statusCode(202).body("status", equalTo("PROCESSING"));
        Ready.await(id);
        given().get("/api/bundles/" + id).then().statusCode(200).body("status", equalTo("READY")).body("readError", nullValue());
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200);
    }

    @Test
    void readingAnUnknownBundleAgainIsNotFound() {
        given().post("/api/bundles/987654321/read").then().statusCode(404);
    }

    static JsonPath awaitNotProcessing(long id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonPath b = given().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
            if (!"PROCESSING".equals(b.getString("status"))) {
                return b;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("bundle " + id + " was still PROCESSING after 60 s");
    }
}
