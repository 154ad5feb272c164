package dev.crashlab.sniff;

import static java.nio.charset.StandardCharsets.UTF_16BE;
import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feeds the sniffer bytes no real artifact has: random data, malformed encodings, and single huge lines
 * built to make a careless regex backtrack. Each must return a type quickly and never throw.
 */
class HostileInputTest {

    /** Generous for a 64 KiB head; a backtracking pattern would take minutes, not seconds. */
    private static final Duration BUDGET = Duration.ofSeconds(5);
    private static final long BASE_SEED = 0x5EED_CAFEL;

    /** Calls the sniffer without its catch-all, so an exception fails the test instead of becoming TEXT. */
    private final Sniff sniffer = ArtifactSniffer::classify;

    @FunctionalInterface
    interface Sniff {
        ArtifactType sniff(String path, byte[] head);
    }

    static LongStream seeds() {
        return LongStream.range(0, 64).map(i -> BASE_SEED + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomBytesAreBinary(long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[1024 + r.nextInt(ArtifactSniffer.HEAD_BYTES)];
        r.nextBytes(b);
        ArtifactType t = assertTimeoutPreemptively(BUDGET, () -> sniffer.sniff("random.bin", b), "seed " + seed);
        assertEquals(ArtifactType.BINARY, t, "random bytes, seed " + seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomTextMadeOfRuleFragmentsNeverThrows(long seed) {
        // Fragments of real signatures in random order and encodings: the worst case for the rules.
        String[] fragments = {"Traceback (most recent call last):", "File \"", "\", line ", "| NVIDIA-SMI ", " : ",
            "Log Name:", "Event ID:", "<Event ", "{\"class_name\"", "==", " @ ", "(0x", "C0000409)", "[ 12.5] ",
            "NVRM: Xid", "Layer (type)", "Output Shape", ", ", "\t", "\n", "\r\n", "    ", "GPU 0: ", "(UUID: GPU-",
            "Epoch 1/2", "[====>", "Package", "Version", "---", "# Name", "pypi_0", "é", "\u00ff", "\uFFFD", "\uD800", ">"};
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 40_000) {
            sb.append(fragments[r.nextInt(fragments.length)]);
        }
        byte[] bytes = switch (r.nextInt(3)) {
            case 0 -> sb.toString().getBytes(UTF_8);
            case 1 -> sb.toString().getBytes(UTF_16LE);
            default -> sb.toString().getBytes(UTF_16BE);
        };
        ArtifactType t = assertTimeoutPreemptively(BUDGET, () -> sniffer.sniff("crash.log", bytes), "seed " + seed);
        assertNotNull(t, "seed " + seed);
    }

    static Stream<Arguments> hugeLines() {
        int n = ArtifactSniffer.HEAD_BYTES;
        return Stream.of(
                Arguments.of("one 64 KiB line of letters", repeat("a", n)),
                Arguments.of("identifier run that looks like an exception name", repeat("Abc.", n / 4) + "Error"),
                Arguments.of("repeated python frame openings", repeat("File \"x", n / 7)),
                Arguments.of("repeated NTSTATUS openings", repeat("(0xC0000", n / 8)),
                Arguments.of("repeated dmesg brackets", repeat("[ 1.", n / 4)),
                Arguments.of("repeated HTML tag openings", repeat("<p", n / 2)),
                Arguments.of("repeated -q separators", repeat(" : ", n / 3)),
                Arguments.of("a CSV header of 20,000 fields", repeat("a.b, ", n / 5)),
                Arguments.of("repeated quoted build-info keys", repeat("'cuda_version'", n / 14)),
                Arguments.of("a line of spaces", repeat(" ", n)),
                Arguments.of("kernel-line lookalike with a huge host name", "Jun  4 10:11:12 " + repeat("h", n - 40) + " kernel: x"),
                Arguments.of("glog lookalike with a huge file name", "E0101 00:00:00.1 1 " + repeat("f", n - 40) + ":1]"),
                Arguments.of("65,536 empty lines", repeat("\n", n)),
                Arguments.of("65,536 lines of one character", repeat("x\n", n / 2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hugeLines")
    void hugeLinesAreSniffedQuickly(String description, String text) {
        for (byte[] bytes : new byte[][] {text.getBytes(UTF_8), Encodings.head(text.getBytes(UTF_16LE))}) {
            ArtifactType t = assertTimeoutPreemptively(BUDGET, () -> sniffer.sniff("crash.log", bytes), description);
            assertNotNull(t, description);
        }
    }

    @Test
    void truncatedUtf16NeverThrows() {
        byte[] full = Encodings.concat(new byte[] {(byte) 0xFF, (byte) 0xFE},
                "Log Name: System\r\nEvent ID: 4101\r\n".getBytes(UTF_16LE));
        for (int len = 0; len <= full.length; len++) {
            byte[] cut = Arrays.copyOf(full, len);
            assertNotNull(sniffer.sniff("events.txt", cut), "cut at " + len);
        }
        assertEquals(ArtifactType.EVENTLOG_TEXT, sniffer.sniff("events.txt", Arrays.copyOf(full, full.length - 3)));
    }

    @Test
    void unpairedSurrogatesAndInvalidUtf8NeverThrow() {
        byte[] loneSurrogates = {(byte) 0xFF, (byte) 0xFE, 0x00, (byte) 0xD8, 'A', 0, 0x00, (byte) 0xDC, 0x00, (byte) 0xD8};
        byte[] badUtf8 = {'o', 'k', (byte) 0xC0, (byte) 0x80, (byte) 0xED, (byte) 0xA0, (byte) 0x80, (byte) 0xF8, '\n'};
        byte[] bomThenBinary = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, 0, 1, 2, 3, 0, 0, 5, 6, 0, 1};
        assertNotNull(sniffer.sniff("a", loneSurrogates));
        assertNotNull(sniffer.sniff("a", badUtf8));
        assertEquals(ArtifactType.BINARY, sniffer.sniff("a", bomThenBinary));
    }

    @Test
    void nullArgumentsAreTreatedAsEmpty() {
        assertEquals(ArtifactType.TEXT, sniffer.sniff(null, (byte[]) null));
        assertEquals(ArtifactType.CONSOLE_LOG, sniffer.sniff(null, "Killed\n".getBytes(UTF_8)));
    }

    private static String repeat(String s, int times) {
        return s.repeat(Math.max(0, times));
    }
}
