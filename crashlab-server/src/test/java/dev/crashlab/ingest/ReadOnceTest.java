package dev.crashlab.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import dev.crashlab.testing.CountingBlobStore;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 1: one upload and one diagnosis read each artifact's bytes once; the facts API, the
 * reproduction draft and a diagnosis recomputed after a confirmation read none (counted by {@link CountingBlobStore}).
 */
@QuarkusTest
class ReadOnceTest {

    static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/fixtures");

    // our fixtures, made unique by trailing blank lines so that their blobs are this test's alone
    static byte[] unique(String fixture) throws IOException {
        byte[] bytes = Files.readAllBytes(FIXTURES.resolve(fixture));
        byte[] pad = "\n".repeat(1 + (int) (System.nanoTime() % 5000)).getBytes();
        byte[] out = new byte[bytes.length + pad.length];
        System.arraycopy(bytes, 0, out, 0, bytes.length);
        System.arraycopy(pad, 0, out, bytes.length, pad.length);
        return out;
    }

    @Test
    void uploadAndDiagnosisReadEachArtifactOnceAndLaterReadsReadNone() throws IOException {
        JsonPath created = given()
                .multiPart("file", "console.log", unique("console-log/driver-and-statuses.txt"), "text/plain")
                .multiPart("file", "model.json", unique("keras-model-json/keras2-sequential-mixed-float16.json"), "application/json")
                .multiPart("file", "pip-freeze.txt", unique("pip-freeze/" + firstFixture("pip-freeze")), "text/plain")
                .post("/api/bundles").then().statusCode(201)
                .body("status", equalTo("PROCESSING"))
                .extract().jsonPath();
        long id = created.getLong("id");

        dev.crashlab.testing.Ready.await(id);
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200).body("hypotheses", notNullValue());
        given().get("/api/bundles/" + id).then().statusCode(200).body("status", equalTo("READY"));

        List<Map<String, Object>> artifacts = given().get("/api/bundles/" + id).then().extract().jsonPath().getList("artifacts");
        assertThat(artifacts).hasSize(3);
        for (Map<String, Object> a : artifacts) {
            String sha = (String) a.get("sha256");
            long size = ((Number) a.get("size")).longValue();
            assertThat(CountingBlobStore.opens(sha)).as("opens of " + a.get("path")).isEqualTo(1);
            assertThat(CountingBlobStore.bytesRead(sha)).as("bytes read of " + a.get("path")).isEqualTo(size);
            assertThat(a.get("parseStatus")).as("parse status of " + a.get("path")).isNotEqualTo("PENDING");
        }

        // reads of what the bundle says: from the stored facts only
        given().get("/api/bundles/" + id + "/facts").then().statusCode(200)
                .body("artifacts.size()", equalTo(3))
                .body("artifacts.find { it.path == 'console.log' }.facts.size()", org.hamcrest.Matchers.greaterThan(0));
        given().get("/api/repro/drafts/" + id).then().statusCode(200).body("spec", notNullValue());
        JsonPath before = given().get("/api/bundles/" + id + "/diagnosis").then().extract().jsonPath();
        given().contentType("application/json").body(Map.of("articleId", before.getString("hypotheses[0].id"), "note", "read-once test"))
                .put("/api/bundles/" + id + "/resolution").then().statusCode(200);
        // a confirmation changes the diagnoses' stamp: this one is computed again, from the stored facts
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200)
                .body("computedAt", org.hamcrest.Matchers.not(equalTo(before.getString("computedAt"))));

        for (Map<String, Object> a : artifacts) {
            String sha = (String) a.get("sha256");
            assertThat(CountingBlobStore.opens(sha)).as("opens of " + a.get("path") + " after facts, draft and recompute")
                    .isEqualTo(1);
            assertThat(CountingBlobStore.bytesRead(sha)).isEqualTo(((Number) a.get("size")).longValue());
        }
    }

    static String firstFixture(String parser) throws IOException {
        try (var files = Files.list(FIXTURES.resolve(parser))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".facts.json") && !n.startsWith("hostile"))
                    .sorted().findFirst().orElseThrow();
        }
    }
}
