package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Facts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End to end: a Keras model JSON, parsed into ConvSpec facts, becomes a spec the CPU backend replays. */
class ReproFromModelTest {

    static final Path MODEL = Path.of("crashlab-repro/src/test/resources/repro/keras-small-cnn.json");

    @TempDir
    Path dir;

    @Test
    void aKerasModelBecomesASpec() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", MODEL.toString(), "--print-spec");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode spec = Facts.json().readTree(r.out());
        // the batch of batch_input_shape, channels_last, Keras' kinds resolved
        assertThat(spec.get("batch").asInt()).isEqualTo(4);
        assertThat(spec.get("layout").asText()).isEqualTo("NHWC");
        JsonNode layers = spec.get("layers");
        assertThat(layers).extracting(l -> l.get("name").asText())
                .containsExactly("stem", "sep/depthwise", "sep/pointwise", "up");
        // stem: 24x24x3, 3x3 stride 2 'same': total padding (12-1)*2+3-24 = 1, at the end
        assertThat(layers.get(0).get("pad_begin").toString()).isEqualTo("[0,0]");
        assertThat(layers.get(0).get("pad_end").toString()).isEqualTo("[1,1]");
        // separable with depth_multiplier 2 on 8 channels: depthwise 8 -> 16 in 8 groups, then 1x1 16 -> 16 on 10x10
        assertThat(layers.get(1).get("groups").asInt()).isEqualTo(8);
        assertThat(layers.get(1).get("out_channels").asInt()).isEqualTo(16);
        assertThat(layers.get(2).get("input").toString()).isEqualTo("[10,10]");
        assertThat(layers.get(3).get("transposed").asBoolean()).isTrue();
    }

    @Test
    void aKerasModelReplaysOnTheCpu() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", MODEL.toString(), "--json");
        assertThat(r.status()).as(r.err() + r.out()).isZero();
        JsonNode j = Facts.json().readTree(r.out());
        assertThat(j.get("status").asText()).isEqualTo("passed");
        assertThat(j.get("layers")).hasSize(4).allSatisfy(l -> assertThat(l.get("status").asText()).isEqualTo("passed"));
        // the transposed layer doubles 10x10 to 20x20 with 4 channels: its forward output is 4*4*20*20 floats
        assertThat(j.get("layers").get(3).get("problem").asText()).contains("convT2d", "K=4");
        assertThat(j.get("notes").toString()).contains("optimizer not stated");
    }

    @Test
    void aBundleFolderWithTheModelAndNvidiaSmiIsComparedWithTheCard() throws Exception {
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        Files.copy(MODEL, bundle.resolve("model.json"));
        Files.writeString(bundle.resolve("gpu.csv"), """
                name, memory.total [MiB], memory.used [MiB]
                NVIDIA GeForce GTX 1060 6GB, 6144 MiB, 350 MiB
                """);
        CrashLabCliTest.Run r = CrashLabCliTest.run("repro", "--spec", bundle.toString(), "--estimate-only", "--json");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode e = Facts.json().readTree(r.out());
        assertThat(e.get("layers")).hasSize(4);
        // (6144 - 350) MiB minus the 512 MiB reserve
        assertThat(e.get("available_bytes").asLong()).isEqualTo((6144L - 350 - 512) << 20);
        assertThat(e.get("fits").asBoolean()).isTrue();
    }
}
