package dev.crashlab.parse.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feeds every environment parser seeded hostile input (giant lines of regex-unfriendly text, random bytes,
 * fixtures cut at random points and with random bytes flipped): each must return, quickly, without throwing.
 */
class EnvHostileInputTest {

    private static final long SEED = Long.getLong("crashlab.seed", 0x5EEDE2L);

    @TempDir
    Path dir;

    @Test
    void giantLinesCostBoundedTimeAndAreReported() throws IOException {
        // runs of characters the patterns like ("1.1.1...", "'a': '") make backtracking bugs show up as timeouts
        String[] fillers = {"1.", "a", "'a': '", "GPU 0: ", "nvidia-cudnn-cu12==", "# ", " "};
        for (Map.Entry<ArtifactParser, ArtifactType> e : EnvGoldenFilesTest.PARSERS.entrySet()) {
            for (String filler : fillers) {
                Path file = dir.resolve("long.txt");
                Files.writeString(file, filler.repeat(1024 * 1024 / filler.length()) + "\ncuda: 11.8\n", StandardCharsets.UTF_8);
                ParseResult r = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> e.getKey().parse(new ParseInput("long.txt", e.getValue(), file)), e.getKey().name() + " / " + filler);
                assertThat(r.problems()).as("%s reports the cut line", e.getKey().name())
                        .anyMatch(p -> p instanceof ParseProblem.MalformedInput);
            }
        }
    }

    @Test
    void randomBytesNeverThrow() throws IOException {
        Random random = new Random(SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : EnvGoldenFilesTest.PARSERS.entrySet()) {
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
        for (Map.Entry<ArtifactParser, ArtifactType> e : EnvGoldenFilesTest.PARSERS.entrySet()) {
            for (Path fixture : GoldenFiles.fixtures(e.getKey().name())) {
                byte[] original = Files.readAllBytes(fixture);
                if (original.length == 0 || original.length > 100_000) {
                    continue;
                }
                for (int i = 0; i < 20; i++) {
                    byte[] bytes = java.util.Arrays.copyOf(original, random.nextInt(original.length + 1));
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
