package dev.crashlab.repro.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay child: a real replay on the CPU backend, probes, and the results of bad input. */
class ReplayChildTest {

    static final String SPEC = """
            {"format": 1, "batch": 2, "dtype": "float32", "layout": "NCHW", "mode": "training", "optimizer": "adam",
             "layers": [{"name": "conv1", "in_channels": 3, "out_channels": 4, "input": [9, 9], "kernel": [3, 3],
                         "stride": [2, 2], "padding": "same"},
                        {"name": "conv2", "in_channels": 4, "out_channels": 4, "input": [5, 5], "kernel": [3, 3],
                         "groups": 2}]}
            """;

    @TempDir
    Path dir;

    final ObjectMapper json = new ObjectMapper();
    final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private int run(String... args) {
        return ReplayChild.run(args, new PrintStream(printed, true, StandardCharsets.UTF_8));
    }

    @Test
    void replaysASpecOnTheCpuAndReportsEachLayerAsProgress() throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), SPEC);
        Path result = dir.resolve("result.json");
        assertThat(run("--spec", spec.toString(), "--result", result.toString(), "--backend", "cpu")).isZero();
        JsonNode r = json.readTree(result.toFile());
        assertThat(r.get("status").asText()).isEqualTo("passed");
        assertThat(r.get("backend").asText()).isEqualTo("cpu");
        assertThat(r.get("layers")).hasSize(2);
        assertThat(r.get("estimate").get("total_bytes").asLong()).isPositive();
        String out = printed.toString(StandardCharsets.UTF_8);
        // every pass and layer reports [FLOP done/total elapsed ms]: the last says all of the replay's work is done
        long total = 0;
        for (dev.crashlab.conv.ConvProblem p : dev.crashlab.repro.ReproSpecJson.read(SPEC).spec().problems()) {
            total += 3 * 2 * p.macs();
        }
        assertThat(LogTail.lastProgress(out)).matches("\\[" + total + "/" + total + " \\d+ ms\\] layer 2/2 conv2: passed");
        assertThat(out).containsPattern("progress: \\[0/" + total + " \\d+ ms\\] layer 1/2 conv1 forward")
                .contains("layer 2/2 conv2 backward-filter");
    }

    @Test
    void aCapBelowTheNeedFailsWithOutOfMemory() throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), SPEC);
        Path result = dir.resolve("result.json");
        assertThat(run("--spec", spec.toString(), "--result", result.toString(), "--memory-cap", "64")).isZero();
        JsonNode r = json.readTree(result.toFile());
        assertThat(r.get("status").asText()).isEqualTo("failed");
        assertThat(r.get("memory_cap_bytes").asLong()).isEqualTo(64);
        assertThat(r.get("layers").get(0).get("status").asText()).isEqualTo("out-of-memory");
    }

    @Test
    void anInvalidSpecIsAFailedResultNamingTheField() throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), "{\"format\": 1, \"layers\": [{\"name\": \"x\", \"kernal\": [3]}]}");
        Path result = dir.resolve("result.json");
        assertThat(run("--spec", spec.toString(), "--result", result.toString())).isZero();
        JsonNode r = json.readTree(result.toFile());
        assertThat(r.get("status").asText()).isEqualTo("failed");
        assertThat(r.get("reason").asText()).startsWith("invalid spec: ").contains("kernal");
    }

    @Test
    void probesDescribeTheDeviceOrWhyThereIsNone() throws Exception {
        Path result = dir.resolve("probe.json");
        assertThat(run("--probe", "--backend", "cpu", "--result", result.toString())).isZero();
        JsonNode cpu = json.readTree(result.toFile());
        assertThat(cpu.get("device").asText()).contains("CPU");
        assertThat(cpu.get("unavailable_reason").isNull()).isTrue();

        assertThat(run("--probe", "--backend", "cuda", "--result", result.toString())).isZero();
        JsonNode cuda = json.readTree(result.toFile());
        assertThat(cuda.get("unavailable_reason").asText()).isNotBlank();

        assertThat(run("--probe", "--backend", "tpu", "--result", result.toString())).isZero();
        assertThat(json.readTree(result.toFile()).get("unavailable_reason").asText()).contains("unknown backend");
    }

    @Test
    void cudaWithoutADeviceIsUnavailableNotACrash() throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), SPEC);
        Path result = dir.resolve("result.json");
        assertThat(run("--spec", spec.toString(), "--result", result.toString(), "--backend", "cuda")).isZero();
        JsonNode r = json.readTree(result.toFile());
        // on a machine with a CUDA device and the cuda backend built in, this replays; elsewhere it says why not
        assertThat(r.get("status").asText()).isIn("unavailable", "passed");
        if (r.get("status").asText().equals("unavailable")) {
            assertThat(r.get("reason").asText()).isNotBlank();
        }
    }

    @Test
    void missingArgumentsExitWith2() {
        assertThat(run("--spec", "x")).isEqualTo(2);
        assertThat(run("--result", dir.resolve("r.json").toString())).isEqualTo(2);
    }

    @Test
    void theProbeRunsInAChildJvm() {
        WorkerSettings settings = new WorkerSettings("probe-test", "cpu", Duration.ofSeconds(1), Duration.ofSeconds(60),
                "128m", dir, WorkerSettings.REPLAY_MAIN, ChildJvm.classpathOf(System.getProperty("java.class.path")));
        List<WorkerMessages.Device> devices = DeviceProbe.probe(settings);
        assertThat(devices).hasSize(1);
        assertThat(devices.get(0).unavailableReason()).isNull();
        assertThat(devices.get(0).name()).contains("CPU");
        assertThat(devices.get(0).memoryBytes()).isPositive();
    }
}
