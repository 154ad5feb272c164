package dev.crashlab.parse.winevent;

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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feeds every event-log parser seeded hostile input (giant lines made of the prefixes its patterns look for,
 * random bytes, fixtures cut at random points with random bytes flipped): each must return without throwing.
 * The time limit only catches a hang (runaway backtracking); it measures nothing.
 */
class WindowsEventHostileInputTest {

    private static final long SEED = Long.getLong("crashlab.seed", 0xE7E27L);
    private static final Map<ArtifactParser, ArtifactType> PARSERS = new LinkedHashMap<>();

    static {
        PARSERS.put(new WindowsEventTextParser(), ArtifactType.EVENTLOG_TEXT);
        PARSERS.put(new WindowsEventTabParser(), ArtifactType.EVENTLOG_TEXT);
        PARSERS.put(new WindowsEventXmlParser(), ArtifactType.EVENTLOG_XML);
        PARSERS.put(new WindowsEventCsvParser(), ArtifactType.EVENTLOG_CSV);
    }

    @TempDir
    Path dir;

    @Test
    void giantLinesOfPatternPrefixesDoNotHang() throws IOException {
        String[] fillers = {"Faulting application name: a, version: ", "> ", "<div>", "P1: ", "Graphics SM ",
                "The description for Event ID 1 from source ", "Display driver ", "\"", ",", "\t", "<Event><Data>",
                "1/1/2025 1:1", "Message      : "};
        System.out.println("WindowsEventHostileInputTest seed " + SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : PARSERS.entrySet()) {
            for (String filler : fillers) {
                String line = filler.repeat(512 * 1024 / filler.length());
                parseQuietly(e.getKey(), e.getValue(), (line + "\n" + line + "\nException code: 0xc0000005\n")
                        .getBytes(StandardCharsets.UTF_8), "filler " + filler);
            }
        }
    }

    @Test
    void randomBytesNeverThrow() throws IOException {
        Random random = new Random(SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : PARSERS.entrySet()) {
            for (int i = 0; i < 40; i++) {
                byte[] bytes = new byte[random.nextInt(8192)];
                random.nextBytes(bytes);
                parseQuietly(e.getKey(), e.getValue(), bytes, "seed " + SEED + ", case " + i);
            }
        }
    }

    @Test
    void truncatedAndCorruptedFixturesNeverThrow() throws IOException {
        Random random = new Random(SEED);
        for (Map.Entry<ArtifactParser, ArtifactType> e : PARSERS.entrySet()) {
            for (Path fixture : GoldenFiles.fixtures(e.getKey().name())) {
                byte[] original = Files.readAllBytes(fixture);
                if (original.length == 0 || original.length > 100_000) {
                    continue;
                }
                for (int i = 0; i < 15; i++) {
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
        ParseResult r = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> parser.parse(new ParseInput("hostile.bin", type, file)), parser.name() + ": " + what);
        assertThat(r).as(what).isNotNull();
    }
}
