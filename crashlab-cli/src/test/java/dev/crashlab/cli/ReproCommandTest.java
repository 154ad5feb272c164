package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Facts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code crashlab repro}, driven in-process: spec files, bundles, backends, caps, and bad input. */
class ReproCommandTest {

    @TempDir
    Path dir;

    static final String SPEC = """
            {"format": 1, "batch": 2, "dtype": "float32", "layout": "NCHW", "mode": "training", "optimizer": "sgd",
             "reporter_gpu": {"name": "tiny card", "memory_total_mib": 520, "memory_used_mib": 4},
             "layers": [
               {"name": "c1", "in_channels": 3, "out_channels": 8, "input": [16, 16], "kernel": [3, 3], "padding": "same"},
               {"name": "c2", "in_channels": 8, "out_channels": 4, "input": [16, 16], "kernel": [3, 3], "stride": [2, 2],
                "padding": "valid", "groups": 2}
             ]}
            """;

    Path spec() throws Exception {
        return Files.writeString(dir.resolve("spec.json"), SPEC);
    }

    @Test
    void replaysASpecOnTheCpuAndPrintsJson() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", spec().toString(), "--json");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode j = Facts.json().readTree(r.out());
        assertThat(j.get("status").asText()).isEqualTo("passed");
        assertThat(j.get("backend").asText()).isEqualTo("cpu");
        assertThat(j.get("reason").asText()).contains("2 layer(s) passed");
        assertThat(j.get("estimate").get("total_bytes").asLong()).isPositive();
        assertThat(j.get("estimate").get("layers")).hasSize(2);
        assertThat(j.get("layers")).hasSize(2);
        for (JsonNode l : j.get("layers")) {
            assertThat(l.get("status").asText()).isEqualTo("passed");
            assertThat(l.get("peak_bytes").asLong()).isPositive();
            assertThat(l.get("kernel_ms").get("forward").isNumber()).isTrue();
            assertThat(l.get("max_abs_error").asDouble()).isLessThan(1e-4);
        }
    }

    @Test
    void printsATableWithTheEstimate() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", spec().toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("replay: passed on cpu").contains("c1", "c2", "estimate (training step)",
                "reporter's card: 4.0 MiB available -> fits", "not modelled:");
        assertThat(r.err()).contains("layer 1/2 c1: passed");
    }

    @Test
    void aCapBelowWhatALayerNeedsIsOutOfMemory() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", spec().toString(), "--memory-cap", "8KiB", "--json");
        assertThat(r.status()).isEqualTo(1);
        JsonNode j = Facts.json().readTree(r.out());
        assertThat(j.get("status").asText()).isEqualTo("failed");
        assertThat(j.get("memory_cap_bytes").asLong()).isEqualTo(8192);
        assertThat(j.get("layers").get(0).get("status").asText()).isEqualTo("out-of-memory");
        // the reporter's card (520 - 4 - 512 MiB reserve = 4 MiB) holds these small layers
        assertThat(CrashLabCliTest.run("repro", "--spec", spec().toString(), "--memory-cap", "reporter").status()).isZero();
    }

    @Test
    void theCudaBackendIsUnavailableWithoutADriver() throws Exception {
        assumeFalse(Files.exists(Path.of("/dev/nvidia0")), "this machine has an NVIDIA device");
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", spec().toString(), "--backend", "cuda", "--json");
        assertThat(r.status()).isEqualTo(3);
        JsonNode j = Facts.json().readTree(r.out());
        assertThat(j.get("status").asText()).isEqualTo("unavailable");
        assertThat(j.get("backend").asText()).isEqualTo("cuda");
        assertThat(j.get("reason").asText()).startsWith("backend cuda is unavailable: ");
        assertThat(j.get("estimate").get("total_bytes").asLong()).isPositive();
    }

    @Test
    void overridesAndTheSpecRoundTrip() throws Exception {
        CrashLabCliTest.Run printed = CrashLabCliTest.run("repro", "--spec", spec().toString(), "--print-spec", "--batch", "5",
                "--mode", "inference");
        assertThat(printed.status()).as(printed.err()).isZero();
        Path again = Files.writeString(dir.resolve("again.json"), printed.out());
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", again.toString(), "--estimate-only", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode e = Facts.json().readTree(r.out());
        assertThat(e.get("mode").asText()).isEqualTo("INFERENCE");
        assertThat(e.get("gradient_bytes").asLong()).isZero();
        // c1 forward at batch 5: 5*3*256 inputs + 5*8*256 outputs, 4 bytes each, plus its im2col 5*256*27*4
        assertThat(e.get("layers").get(0).get("transient_bytes").asLong()).isEqualTo(4L * (5 * 3 * 256 + 5 * 8 * 256) + 5L * 256 * 27 * 4);
    }

    @Test
    void badInputIsStatusTwoWithTheFieldPath() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.json"), "{\"format\": 1, \"batch\": 2, \"layers\": [{\"in_channels\": 3}]}");
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", bad.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("layers[0].out_channels: missing", "layers[0].input: missing");
        assertThat(CrashLabCliTest.run("repro", "--spec", dir.resolve("absent.json").toString()).err()).contains("no such file");
        assertThat(CrashLabCliTest.run("repro", "--spec", spec().toString(), "--memory-cap", "lots").status()).isEqualTo(2);
        assertThat(CrashLabCliTest.run("repro", "--spec", spec().toString(), "--backend", "tpu").status()).isEqualTo(2);
        assertThat(CrashLabCliTest.run("repro", "--spec", spec().toString(), "--mode", "fit").status()).isEqualTo(2);
    }

    @Test
    void aBundleWithoutModelFactsHasNothingToReplay() throws Exception {
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        Files.writeString(bundle.resolve("crash.log"), "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nValueError: boom\n");
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", bundle.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("nothing to replay: no convolution layers in the facts");
    }
}
