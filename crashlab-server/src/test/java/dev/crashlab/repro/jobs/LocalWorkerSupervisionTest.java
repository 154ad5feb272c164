package dev.crashlab.repro.jobs;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.repro.worker.ScriptedChild;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3 of issue 26: the server's own worker thread dies (an error thrown in its loop, as the out-of-memory
 * error of the probe did); a job queued afterwards still runs within 30 s, the death is in the log at ERROR, and
 * {@code /q/health} and {@code /q/metrics} show it. On main the thread stayed dead and the job queued.
 */
@QuarkusTest
@TestProfile(LocalWorkerSupervisionTest.LocalWorkerOn.class)
class LocalWorkerSupervisionTest {

    /**
     * The local worker on (CPU backend), polling often. Not ReproUiTestProfile (the same settings with the UI): the
     * death this test causes would show in AdminPagesBrowserTest's "never restarted".
     */
    public static class LocalWorkerOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("crashlab.lab.local-worker", "true", "crashlab.lab.local-backend", "cpu",
                    "crashlab.lab.poll-interval", "200ms", "quarkus.http.test-port", "0");
        }
    }

    @Inject
    LocalWorker local;

    @Test
    void aDeadWorkerThreadIsRestartedAndItsDeathShows() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                    errors.add(String.valueOf(r.getMessage()) + " " + java.util.Arrays.toString(r.getParameters()));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(LocalWorker.class.getName());
        logger.addHandler(capture);
        try {
            long waitStart = System.nanoTime();
            while (!local.state().alive()) { // the first thread probes its device first
                assertThat(System.nanoTime() - waitStart).as("local worker never started").isLessThan(120_000_000_000L);
                Thread.sleep(100);
            }
            int before = local.state().deaths();
            local.failNextClaim(new OutOfMemoryError("Java heap space (injected by " + getClass().getSimpleName() + ")"));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (local.state().deaths() == before) {
                assertThat(System.nanoTime()).as("the worker thread did not die from the injected error").isLessThan(deadline);
                Thread.sleep(50);
            }
            // queued after the death: it must still be claimed and run
            long queuedAt = System.nanoTime();
            long id = given().contentType("application/json")
                    .body("{\"spec\":" + ScriptedChild.spec("pass") + ",\"target\":\"worker:" + LocalWorker.NAME + "\"}")
                    .post("/api/repro/jobs").then().statusCode(201).extract().<Integer>path("id").longValue();
            String state = "queued";
            while (state.equals("queued")) {
                assertThat(System.nanoTime() - queuedAt).as("job %d still queued 30 s after the worker died", id)
                        .isLessThan(30_000_000_000L);
                Thread.sleep(200);
                state = given().get("/api/repro/jobs/" + id).then().statusCode(200).extract().path("state");
            }
            assertThat(errors).anySatisfy(e -> assertThat(e).contains("local reproduction worker died").contains("OutOfMemoryError"));
            String health = given().get("/q/health").then().extract().asString();
            assertThat(health).contains("local-reproduction-worker").containsPattern("\"deaths\":\\s*" + (before + 1))
                    .contains("OutOfMemoryError");
            String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
            assertThat(metrics).contains("crashlab_local_worker_deaths_total").contains("crashlab_local_worker_alive");
            // let the job finish before the app stops (it runs a real child JVM)
            long end = System.nanoTime() + 180_000_000_000L;
            while (List.of("queued", "running").contains(state) && System.nanoTime() < end) {
                Thread.sleep(500);
                state = given().get("/api/repro/jobs/" + id).then().extract().path("state");
            }
        } finally {
            logger.removeHandler(capture);
        }
    }
}
