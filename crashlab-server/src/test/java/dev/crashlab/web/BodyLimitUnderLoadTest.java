package dev.crashlab.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.repro.worker.ScriptedChild;
import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.TestAuth;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4 of issue 26, on a real server with {@code -Xmx512m} and the production upload limit (1 GiB): 24
 * parallel 38 MB bodies without a {@code Content-Type} to every JSON route all get 413, the server stays healthy,
 * and a reproduction queued afterwards still runs. On main the first such wave to {@code /api/auth/login} ran the
 * server out of memory and killed its worker thread.
 */
@BesideInProcessTests
class BodyLimitUnderLoadTest {

    static final int PARALLEL = 24;
    static final int BODY_BYTES = 38_000_000;

    @Test
    void largeUntypedBodiesToEveryJsonRouteAreRefusedAndTheServerKeepsWorking() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (scripts/test-pg start sets TEST_PG_PORT)");
        try (ChildServer server = ChildServer.start("bodylimit", Map.of(
                "crashlab.upload.max-request-size", "1G",
                "crashlab.lab.local-worker", "true",
                "crashlab.lab.local-backend", "cpu",
                "crashlab.lab.poll-interval", "200ms"), List.of("-Xmx512m"))) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(20)).build();
            URI base = server.base();
            JsonNode doc = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(base.resolve("/q/openapi?format=json"))
                    .header("Authorization", "Bearer " + TestAuth.ADMIN_TOKEN).build(), HttpResponse.BodyHandlers.ofString()).body());
            List<String[]> routes = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields(); paths.hasNext(); ) {
                Map.Entry<String, JsonNode> path = paths.next();
                for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                    Map.Entry<String, JsonNode> op = ops.next();
                    if (op.getValue().path("requestBody").path("content").has("application/json")) {
                        routes.add(new String[] {op.getKey().toUpperCase(java.util.Locale.ROOT),
                                path.getKey().replaceAll("\\{[^}]+}", "1")});
                    }
                }
            }
            assertThat(routes).as("JSON routes in the OpenAPI document").hasSizeGreaterThanOrEqualTo(8);
            byte[] body = new byte[BODY_BYTES];
            java.util.Arrays.fill(body, (byte) '[');
            List<String> wrong = new ArrayList<>();
            int sent = 0;
            for (String[] route : routes) {
                List<CompletableFuture<HttpResponse<String>>> wave = new ArrayList<>();
                for (int i = 0; i < PARALLEL; i++) {
                    wave.add(http.sendAsync(HttpRequest.newBuilder(base.resolve(route[1]))
                            .method(route[0], HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : wave) {
                    sent++;
                    try {
                        HttpResponse<String> r = f.join();
                        if (r.statusCode() != 413) {
                            wrong.add(route[0] + " " + route[1] + ": " + r.statusCode());
                        }
                    } catch (java.util.concurrent.CompletionException e) {
                        wrong.add(route[0] + " " + route[1] + ": " + e.getCause());
                    }
                }
                assertThat(server.alive()).as("server alive after " + route[0] + " " + route[1] + "\n" + server.logTail()).isTrue();
            }
            System.out.printf("body limit under load: %d routes x %d parallel 38 MB bodies = %d requests, %d not 413; %s; peak RSS %d MiB%n",
                    routes.size(), PARALLEL, sent, wrong.size(), server.heapSummary(), server.peakRssBytes() >> 20);
            assertThat(wrong).as("requests not answered 413").isEmpty();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(base.resolve("/q/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(server.logTail()).doesNotContain("OutOfMemoryError");
            // a reproduction queued now still runs on the server's own worker
            HttpResponse<String> queued = http.send(HttpRequest.newBuilder(base.resolve("/api/repro/jobs"))
                    .header("Authorization", "Bearer " + TestAuth.ADMIN_TOKEN).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"spec\":" + ScriptedChild.spec("pass") + ",\"target\":\"worker:local\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(queued.statusCode()).as(queued.body()).isEqualTo(201);
            long id = new ObjectMapper().readTree(queued.body()).get("id").asLong();
            String state = "queued";
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (state.equals("queued") && System.nanoTime() < deadline) {
                Thread.sleep(250);
                state = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(base.resolve("/api/repro/jobs/" + id))
                        .header("Authorization", "Bearer " + TestAuth.ADMIN_TOKEN).build(), HttpResponse.BodyHandlers.ofString())
                        .body()).path("state").asText();
            }
            assertThat(state).as("job %d after the bodies", id).isNotEqualTo("queued");
        }
    }
}
