package dev.crashlab.parse.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feeds every model parser seeded hostile input (giant lines of regex-unfriendly text, random bytes, deep
 * nesting, fixtures cut at random points and with random bytes flipped): each must return, quickly, without
 * throwing. The seed is printed with every case ({@code -Dcrashlab.seed=N} replays one).
 */
class ModelHostileInputTest {

    private static final long SEED = Long.getLong("crashlab.seed", 0x40DE1L);

    @TempDir
    Path dir;

    @Test
    void giantLinesCostBoundedTime() throws IOException {
        String[] fillers = {"(None, ", "Conv2D(", "1, ", "[", "{\"a\": ", "│ x ", "conv2d (Conv2D", "data = torch.randn([",
            "batch_size=", "  "};
        for (Map.Entry<ArtifactParser, ArtifactType> e : ModelGoldenFilesTest.PARSERS.entrySet()) {
            for (String filler : fillers) {
                Path file = dir.resolve("long.txt");
                Files.writeString(file, filler.repeat(2 * 1024 * 1024 / filler.length()) + "\n", StandardCharsets.UTF_8);
                ParseResult r = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> e.getKey().parse(new ParseInput("long.txt", e.getValue(), file)),
                        e.getKey().name() + " / " + filler);
                assertThat(r.facts()).as("%s on %s", e.getKey().name(), filler).isEmpty();
                assertThat(r.problems()).as("%s reports what it could not read", e.getKey().name()).isNotEmpty();
            }
        }
    }

    @Test
    void deeplyNestedJsonIsAProblemNotACrash() throws IOException {
        Path file = dir.resolve("deep.json");
        Files.writeString(file, "[".repeat(200_000) + "]".repeat(200_000));
        ParseResult r = new KerasModelJsonParser().parse(new ParseInput("deep.json", ArtifactType.KERAS_MODEL_JSON, file));
        assertThat(r.facts()).isEmpty();
        assertThat(r.problems()).singleElement().extracting(p -> p.message()).asString().contains("not valid JSON");
    }

    @Test
    void aLongGraphListedBackwardsCostsLinearTime() throws IOException {
        // 20,000 layers chained input -> act_1 -> ... -> conv, listed last first: every layer waits on the next
        int n = 20_000;
        StringBuilder layers = new StringBuilder();
        layers.append("{\"class_name\": \"Conv2D\", \"name\": \"conv\", \"config\": {\"name\": \"conv\", ")
                .append("\"filters\": 4, \"kernel_size\": [3, 3]}, \"inbound_nodes\": [[[\"act_").append(n).append("\", 0, 0, {}]]]}");
        for (int i = n; i >= 1; i--) {
            layers.append(", {\"class_name\": \"Activation\", \"name\": \"act_").append(i)
                    .append("\", \"config\": {\"activation\": \"relu\"}, \"inbound_nodes\": [[[\"")
                    .append(i == 1 ? "input" : "act_" + (i - 1)).append("\", 0, 0, {}]]]}");
        }
        layers.append(", {\"class_name\": \"InputLayer\", \"name\": \"input\", \"config\": ")
                .append("{\"batch_input_shape\": [null, 8, 8, 3]}, \"inbound_nodes\": []}");
        Path file = dir.resolve("long-graph.json");
        Files.writeString(file, "{\"class_name\": \"Model\", \"config\": {\"layers\": [" + layers
                + "], \"input_layers\": [[\"input\", 0, 0]], \"output_layers\": [[\"conv\", 0, 0]]}}");
        ParseResult r = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> new KerasModelJsonParser().parse(new ParseInput("long-graph.json", ArtifactType.KERAS_MODEL_JSON, file)));
        assertThat(r.facts()).singleElement().isInstanceOfSatisfying(dev.crashlab.fact.ConvSpec.class,
                c -> assertThat(c.inputShape()).containsExactly(null, 8, 8, 3));
    }

    @Test
    void randomBytesNeverThrow() throws IOException {
        Random random = new Random(SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : ModelGoldenFilesTest.PARSERS.entrySet()) {
            for (int i = 0; i < 50; i++) {
                byte[] bytes = new byte[random.nextInt(8192)];
                random.nextBytes(bytes);
                parseQuietly(e.getKey(), e.getValue(), bytes, "seed " + SEED + ", case " + i);
            }
        }
    }

    @Test
    void truncatedAndCorruptedFixturesNeverThrow() throws IOException {
        Random random = new Random(SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : ModelGoldenFilesTest.PARSERS.entrySet()) {
            for (Path fixture : GoldenFiles.fixtures(e.getKey().name())) {
                byte[] original = Files.readAllBytes(fixture);
                if (original.length == 0 || original.length > 100_000) {
                    continue;
                }
                for (int i = 0; i < 20; i++) {
                    byte[] bytes = Arrays.copyOf(original, random.nextInt(original.length + 1));
                    for (int flips = random.nextInt(4); flips > 0 && bytes.length > 0; flips--) {
                        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                    }
                    parseQuietly(e.getKey(), e.getValue(), bytes, fixture + ", seed " + SEED + ", case " + i);
                }
            }
        }
    }

    private void parseQuietly(ArtifactParser parser, ArtifactType type, byte[] bytes, String what) throws IOException {
        Path file = dir.resolve("hostile.bin");
        Files.write(file, bytes);
        ParseResult r = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> parser.parse(new ParseInput("hostile.bin", type, file)), parser.name() + ": " + what);
        assertThat(r).as(what).isNotNull();
    }
}
