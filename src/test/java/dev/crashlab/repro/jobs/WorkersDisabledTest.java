package dev.crashlab.repro.jobs;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without a configured token the worker endpoints refuse every worker, and say how to turn them on. */
@QuarkusTest
@TestProfile(WorkersDisabledTest.NoToken.class)
class WorkersDisabledTest {

    /** The test profile without {@code crashlab.lab.worker-token}. */
    public static class NoToken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("crashlab.lab.worker-token", "", "quarkus.http.test-port", "0");
        }
    }

    @Test
    void workerEndpointsSayHowToEnableThem() {
        given().contentType("application/json").header("Authorization", "Bearer anything").body("{\"worker\":\"w\"}")
                .post("/api/lab/claim").then().statusCode(503).contentType("application/problem+json")
                .body("detail", containsString("crashlab.lab.worker-token"));
        given().get("/api/lab/workers").then().statusCode(200).body("remoteWorkers", equalTo(false));
    }
}
