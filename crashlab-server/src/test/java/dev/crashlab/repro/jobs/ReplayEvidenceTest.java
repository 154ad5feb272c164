package dev.crashlab.repro.jobs;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvBackends;
import dev.crashlab.repro.Replay;
import dev.crashlab.repro.ReplayResult;
import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.worker.ChildExit;
import dev.crashlab.repro.worker.JobState;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A finished reproduction job becomes evidence in its bundle's diagnosis: a real CPU replay that runs out of
 * memory under the reporter's cap raises {@code gpu-oom}, with the job as the evidence's source.
 */
@QuarkusTest
class ReplayEvidenceTest {

    /** A crash that says nothing about memory: only the Windows abort status. */
    static final String LOG = """
            Epoch 1/20
            Process finished with exit code -1073740791 (0xC0000409)
            """;

    static final String SPEC = """
            {"format": 1, "batch": 2, "mode": "training",
             "layers": [{"name": "conv1", "in_channels": 3, "out_channels": 8, "input": [32, 32], "kernel": [3, 3], "padding": "same"}]}
            """;

    @Inject
    ReproJobService jobs;

    @Test
    void anOutOfMemoryReplayRaisesGpuOomWithTheJobAsSource() throws Exception {
        int bundleId = given().multiPart("file", "crash.log", LOG.getBytes(StandardCharsets.UTF_8), "text/plain")
                .post("/api/bundles").then().statusCode(201).extract().path("id");
        dev.crashlab.testing.Ready.await(bundleId);
        double before = confidence(diagnosis(bundleId), "gpu-oom");
        assertThat(evidenceMatchers(diagnosis(bundleId), "gpu-oom")).doesNotContain("replay-oom");

        // a real replay on the CPU backend under a 64 KiB cap: the output tensor alone does not fit
        ReproSpec spec = ReproSpecJson.read(SPEC).spec();
        assertThat(spec).isNotNull();
        ReplayResult replay;
        try (ConvBackend cpu = ConvBackends.open("cpu")) {
            replay = new Replay(cpu, 64 << 10, 7, null).run(spec);
        }
        assertThat(replay.layers()).extracting(l -> l.status()).contains(ReplayResult.LayerStatus.OUT_OF_MEMORY);

        String worker = "evidence-" + UUID.randomUUID().toString().substring(0, 8);
        Instant t0 = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        long jobId = jobs.create((long) bundleId, spec, JobTarget.parse("worker:" + worker), 64L << 10, t0).id();
        Optional<ClaimedJob> claimed = jobs.claim(new ClaimRequest(worker, "cpu", List.of(), "test"), t0);
        assertThat(claimed).map(ClaimedJob::id).contains(jobId);
        JobResult result = new JobResult(replay, ChildExit.of(ChildExit.Ending.EXITED, 0, 1500, "").wire(), worker, "cpu");
        jobs.complete(jobId, new Completion(worker, JobState.FAILED, "out of memory under the cap", result), t0.plusSeconds(5));

        JsonPath after = diagnosis(bundleId);
        assertThat(evidenceMatchers(after, "gpu-oom")).contains("replay-oom");
        List<Map<String, Object>> evidence = after.getList(
                "hypotheses.find { it.id == 'gpu-oom' }.evidence.findAll { it.matcher == 'replay-oom' }");
        @SuppressWarnings("unchecked")
        Map<String, Object> source = (Map<String, Object>) evidence.get(0).get("source");
        assertThat(source.get("artifact")).isEqualTo("repro job #" + jobId);
        assertThat((String) source.get("text")).contains("out-of-memory").contains("conv1");
        assertThat(confidence(after, "gpu-oom")).isGreaterThan(before);
        assertThat(after.getString("hypotheses[0].id")).isEqualTo("gpu-oom");
    }

    private static JsonPath diagnosis(int bundleId) {
        return given().get("/api/bundles/" + bundleId + "/diagnosis").then().statusCode(200).extract().jsonPath();
    }

    private static List<String> evidenceMatchers(JsonPath d, String id) {
        List<String> m = d.getList("hypotheses.find { it.id == '" + id + "' }.evidence.matcher");
        return m == null ? List.of() : m;
    }

    private static double confidence(JsonPath d, String id) {
        Float c = d.getObject("hypotheses.find { it.id == '" + id + "' }.confidence", Float.class);
        return c == null ? 0 : c;
    }

}
