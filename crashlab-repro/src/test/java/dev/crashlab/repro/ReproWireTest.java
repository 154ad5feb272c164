package dev.crashlab.repro;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvBackends;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.crashlab.fact.ReplayOutcome;
import dev.crashlab.repro.worker.ChildExit;
import dev.crashlab.repro.worker.JobState;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The reproduction wire model: specs, results and worker messages are records that read back into themselves, the
 * shape lives in the types (a mapper configured like the server's writes the same JSON as {@link ReproJson}), and a
 * stored result of the earlier code reads into the records.
 */
class ReproWireTest {

    static final String SPEC = """
            {"format": 1, "batch": 2, "mode": "training", "reporter_gpu": {"name": "NVIDIA GeForce GTX 1060 6GB", "memory_total_mib": 6144},
             "layers": [{"name": "conv1", "in_channels": 3, "out_channels": 8, "input": [16, 16], "kernel": [3, 3], "padding": "same"},
                        {"name": "conv2", "in_channels": 8, "out_channels": 8, "input": [16, 16], "kernel": [3, 3], "stride": [2, 2]}]}
            """;

    /** A mapper set up as Quarkus sets up the server's (Jackson's defaults, java.time as ISO text). */
    static final ObjectMapper SERVER_LIKE = JsonMapper.builder().findAndAddModules()
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();

    static ReproSpec spec() {
        ReproSpecJson.Read read = ReproSpecJson.read(SPEC);
        assertThat(read.problems()).isEmpty();
        return read.spec();
    }

    static ReplayResult replayUnderCap(long cap) {
        try (ConvBackend cpu = ConvBackends.open("cpu")) {
            return new Replay(cpu, cap, 7, null).run(spec());
        }
    }

    @Test
    void aReplayResultReadsBackIntoTheSameRecord() throws Exception {
        ReplayResult replay = replayUnderCap(0);
        assertThat(replay.status()).isEqualTo(ReplayResult.Status.PASSED);
        assertThat(replay.findings()).isNotNull();
        String text = ReproJson.write(replay);
        assertThat(ReproJson.mapper().readValue(text, ReplayResult.class)).isEqualTo(replay);

        JsonNode tree = ReproJson.mapper().readTree(text);
        assertThat(tree.has("memory_cap_bytes")).isTrue();
        assertThat(tree.path("layers").get(0).has("tdr_risk")).isTrue();
        assertThat(tree.path("layers").get(0).path("kernel_ms").has("backward_data")).isTrue();
        assertThat(tree.path("estimate").has("total_bytes")).isTrue();
        assertThat(tree.path("findings").has("exceeds_reporter_memory")).isTrue();
        assertThat(tree.toString()).doesNotContain("memoryCapBytes").doesNotContain("tdrRisk");
    }

    @Test
    void theShapeIsTheTypesNotTheMappers() throws Exception {
        ReplayResult replay = replayUnderCap(64 << 10);
        JobResult result = new JobResult(replay, ChildExit.of(ChildExit.Ending.EXITED, 0, 1234, "tail").wire(), "w1", "cpu");
        Completion done = new Completion("w1", JobState.FAILED, "out of memory", result);
        ClaimedJob claimed = new ClaimedJob(5, spec(), 64L << 10, 1, 30);
        for (Object message : List.of(done, claimed, replay, MemoryEstimator.estimate(spec()))) {
            JsonNode server = SERVER_LIKE.valueToTree(message);
            JsonNode ours = ReproJson.mapper().valueToTree(message);
            assertThat(server).as("%s", message.getClass()).isEqualTo(ours);
        }
        JsonNode completion = SERVER_LIKE.valueToTree(done);
        assertThat(completion.path("result").path("child").path("exit_code").asInt()).isZero();
        assertThat(completion.path("result").path("replay").path("layers").get(0).path("status").asText())
                .isEqualTo("out-of-memory");
        assertThat(completion.path("state").asText()).isEqualTo("failed");
        assertThat(SERVER_LIKE.readValue(SERVER_LIKE.writeValueAsString(done), Completion.class)).isEqualTo(done);
    }

    @Test
    void aClaimedJobCarriesTheSpecAsItsDocument() throws Exception {
        ReproSpec spec = spec();
        ClaimedJob claimed = new ClaimedJob(5, spec, null, 2, 30);
        JsonNode tree = ReproJson.mapper().readTree(ReproJson.write(claimed));
        assertThat(tree.get("spec").toString()).isEqualTo(ReproSpecJson.tree(spec).toString());
        assertThat(tree.has("leaseSeconds")).isTrue();
        ClaimedJob back = ReproJson.mapper().readValue(ReproJson.write(claimed), ClaimedJob.class);
        assertThat(back).isEqualTo(claimed);
        assertThat(back.spec().layers().get(0).padBegin()).containsExactly(1, 1);
    }

    @Test
    void aBadSpecInsideAMessageFailsTheReadWithItsPaths() {
        String claim = "{\"id\": 1, \"attempt\": 1, \"leaseSeconds\": 30, \"spec\": {\"format\": 1, \"batch\": 0,"
                + " \"layers\": [{\"in_channels\": 3, \"out_channels\": 8, \"input\": [8, 8]}]}}";
        assertThatThrownBy(() -> ReproJson.mapper().readValue(claim, ClaimedJob.class))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("batch: must be an integer from 1")
                .hasMessageContaining("layers[0].kernel: missing");
    }

    /** A row as the previous code stored it: the child's snake_case result and the worker's child record. */
    static final String STORED_OOM = """
            {"replay":{"status":"failed","backend":"cpu","device":"cpu: 2 threads","reason":"1 of 1 layer(s) failed",
             "memory_cap_bytes":65536,"seed":7,"estimate":null,
             "layers":[{"name":"conv1","problem":"conv1[conv 3->8]","status":"out-of-memory","peak_bytes":0,
                        "kernel_ms":{"forward":null,"backward_data":null,"backward_filter":null},"max_abs_error":null,
                        "tdr_risk":false,"error":"OUT_OF_MEMORY","message":"over the cap"}],
             "findings":{"memory":"memory: ...","time":"time: ...","exceeds_reporter_memory":true,"largest_batch_that_fits":1,
                         "exceeds_watchdog":false,"longest_pass_ms":12.5,"passes_over_watchdog":[]}},
             "child":{"ending":"exited","exit_code":0,"signal":null,"duration_ms":2100,"description":"exited normally","log_tail":""},
             "worker":"lab-1","backend":"cpu"}
            """;

    /** The previous child's result for a spec it could not read: three fields only. */
    static final String STORED_INVALID_SPEC = """
            {"replay":{"status":"failed","backend":"cpu","reason":"invalid spec: layers[0].kernal: unknown field"},
             "child":{"ending":"exited","exit_code":0,"signal":null,"duration_ms":300,"description":"d","log_tail":""},
             "worker":"lab-1","backend":"cpu"}
            """;

    static final String STORED_CRASH = """
            {"replay":null,"child":{"ending":"exited","exit_code":134,"signal":"SIGABRT","duration_ms":900,
             "description":"the replay process ended with exit status 134","log_tail":"fatal"},"worker":"lab-1","backend":"cuda"}
            """;

    @Test
    void storedResultsOfTheEarlierCodeReadIntoTheRecords() {
        JobResult oom = ReproJson.readJobResult(STORED_OOM);
        assertThat(oom.replay().layers()).hasSize(1);
        ReplayResult.LayerResult layer = oom.replay().layers().get(0);
        assertThat(layer.status()).isEqualTo(ReplayResult.LayerStatus.OUT_OF_MEMORY);
        assertThat(layer.kernelMs().forward()).isNull();
        assertThat(oom.replay().findings().exceedsReporterMemory()).isTrue();
        assertThat(oom.child().exitCode()).isZero();

        JobResult invalid = ReproJson.readJobResult(STORED_INVALID_SPEC);
        assertThat(invalid.replay().status()).isEqualTo(ReplayResult.Status.FAILED);
        assertThat(invalid.replay().layers()).isEmpty();
        assertThat(invalid.replay().findings()).isNull();

        JobResult crash = ReproJson.readJobResult(STORED_CRASH);
        assertThat(crash.replay()).isNull();
        assertThat(crash.child().signal()).isEqualTo("SIGABRT");

        assertThatThrownBy(() -> ReproJson.readJobResult("{\"replay\": [1, 2]}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outcomesComeFromTheTypedResult() {
        ReplayOutcome oom = ReplayOutcomes.of(11, "failed", ReproJson.readJobResult(STORED_OOM)).orElseThrow();
        assertThat(oom.outOfMemory()).isTrue();
        assertThat(oom.tdrRisk()).isFalse();
        assertThat(oom.memoryCapBytes()).isEqualTo(65536);
        assertThat(oom.exceedsReporterMemory()).isTrue();
        assertThat(oom.detail()).isEqualTo("conv1: out-of-memory (over the cap)");

        ReplayOutcome crash = ReplayOutcomes.of(12, "crashed", ReproJson.readJobResult(STORED_CRASH)).orElseThrow();
        assertThat(crash.backend()).isEqualTo("cuda");
        assertThat(crash.detail()).isEqualTo("the child exited");

        ReplayResult.LayerResult slow = new ReplayResult.LayerResult("conv9", "p", ReplayResult.LayerStatus.PASSED, 1,
                new ReplayResult.PassTimes(2500.0, null, null), 0.0, true, null, null);
        ReplayResult gpu = new ReplayResult(ReplayResult.Status.PASSED, "cuda", "RTX", "ok", 0, 1, null, List.of(slow));
        ReplayOutcome tdr = ReplayOutcomes.of(13, "passed", new JobResult(gpu, null, "w", "cuda")).orElseThrow();
        assertThat(tdr.tdrRisk()).isTrue();
        assertThat(tdr.detail()).isEqualTo("conv9: a pass took longer than 2 s");

        assertThat(ReplayOutcomes.of(14, "passed", null)).isEqualTo(Optional.empty());
    }
}
