package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.notNullValue;

import dev.crashlab.diagnose.service.BundleDiagnosis;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import org.junit.jupiter.api.Test;

/** A bundle's diagnosis over HTTP: computed and stored at upload, served, and recomputed when the KB changed. */
@QuarkusTest
class DiagnosisApiTest {

    static final String ZLIB_LOG = """
            2023-03-01 10:00:01.123: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library cudnn64_8.dll
            Could not locate zlibwapi.dll. Please make sure it is in your library path!
            Process finished with exit code -1073740791 (0xC0000409)
            """;

    long upload() {
        long id = given().multiPart("file", "console.log", ZLIB_LOG.getBytes(), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        return id;
    }

    @Test
    void uploadStoresADiagnosisThatRanksTheCauseWithSourceLines() {
        long id = upload();
        assertThat(storedFingerprint(id)).as("computed in the background after upload").isNotNull();
        given().when().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200)
                .body("bundleId", equalTo((int) id))
                .body("recomputed", equalTo(false))
                .body("verdict", equalTo("diagnosed"))
                .body("hypotheses[0].id", equalTo("missing-zlibwapi"))
                .body("hypotheses[0].strength", equalTo("strong"))
                .body("hypotheses[0].evidence.size()", greaterThan(0))
                .body("hypotheses[0].evidence[0].source.artifact", equalTo("console.log"))
                .body("kbFingerprint", notNullValue());
    }

    @Test
    void aDiagnosisStoredUnderAnotherKbIsRecomputed() {
        long id = upload();
        setFingerprint(id, "an-older-kb");
        given().when().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200)
                .body("recomputed", equalTo(true));
        assertThat(storedFingerprint(id)).isNotEqualTo("an-older-kb");
    }

    @Test
    void unknownBundleIsA404Problem() {
        given().when().get("/api/bundles/987654321/diagnosis").then().statusCode(404)
                .contentType(containsString("application/problem+json"));
    }

    static String storedFingerprint(long id) {
        return QuarkusTransaction.requiringNew().call(() -> {
            BundleDiagnosis d = BundleDiagnosis.findById(id);
            return d == null ? null : d.kbFingerprint;
        });
    }

    static void setFingerprint(long id, String fingerprint) {
        QuarkusTransaction.requiringNew().run(() -> {
            BundleDiagnosis d = BundleDiagnosis.findById(id);
            d.kbFingerprint = fingerprint;
        });
    }
}
