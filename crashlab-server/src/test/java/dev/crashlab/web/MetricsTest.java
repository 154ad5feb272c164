package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.Ready;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code /q/metrics} (Prometheus text) gives operators per-route latency histograms, the server's waits by what and
 * route, and the connection pool's waits; anonymous callers are refused.
 */
@QuarkusTest
class MetricsTest {

    @Test
    void routesHaveLatencyHistogramsAndWaitsAreTimedByWhatAndRoute() {
        byte[] log = ("RuntimeError: CUDA out of memory (metrics " + System.nanoTime() + ")\n").getBytes(StandardCharsets.UTF_8);
        int id = given().multiPart("file", "train.log", log, "text/plain").post("/api/bundles").then().statusCode(201)
                .extract().path("id");
        Ready.await(id);
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200);

        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        // a histogram per route template (not per bundle id): cumulative buckets, 200 ms and 1 s among their bounds
        java.util.List<String> diagnosisBuckets = metrics.lines()
                .filter(l -> l.startsWith("http_server_requests_seconds_bucket{") && l.contains("uri=\"/bundles/{id}/diagnosis\""))
                .toList();
        assertThat(diagnosisBuckets).anyMatch(l -> l.contains("le=\"0.2\"")).anyMatch(l -> l.contains("le=\"1.0\""))
                .anyMatch(l -> l.contains("le=\"+Inf\""));
        assertThat(metrics).doesNotContain("/bundles/" + id + "/");
        // the reading stored its facts under the bundle's row lock, on the reading pool (no route)
        assertThat(metrics).containsPattern("crashlab_wait_seconds_count\\{[^}]*route=\"background\"[^}]*what=\"bundle-row-lock\"[^}]*}");
        assertThat(metrics).containsPattern("crashlab_wait_seconds_count\\{[^}]*route=\"background\"[^}]*what=\"ingest-queue\"[^}]*}");
        // the upload stored its blobs under the blob guard, on its route
        assertThat(metrics).containsPattern("crashlab_wait_seconds_count\\{[^}]*route=\"BundleResource\\.uploadMultipart\"[^}]*what=\"blob-guard\"[^}]*}");
        assertThat(metrics).contains("agroal_blocking_time_total_milliseconds");

        given().header("Authorization", "").get("/q/metrics").then().statusCode(401);
    }
}
