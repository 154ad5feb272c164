package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The hand-written TF line reader must find exactly what the {@code TF} regex finds, on real and random lines. */
class LogLineRuleTfLineTest {

    static void agrees(String t) {
        Matcher m = LogLineRule.TF.matcher(t);
        int[] ours = LogLineRule.tfLine(t);
        bytesAgree(t, ours);
        if (ours == null) {
            // null also means "left to the regex" (a line terminator inside): then the caller runs the regex itself
            boolean terminator = t.chars().anyMatch(c -> c == '\u0085' || c == '\u2028' || c == '\u2029' || c == '\n' || c == '\r');
            if (!terminator) {
                assertThat(m.find()).as("regex finds in %s", t).isFalse();
            }
            return;
        }
        assertThat(m.find()).as("regex finds in %s", t).isTrue();
        assertThat(new int[] {m.start(1), m.start(2), m.end(2), m.start(3)}).as(t).containsExactly(ours);
    }

    // the reading pass's byte reader (on a line inside a buffer) finds what the rule finds, where the rule would look
    private static void bytesAgree(String t, int[] ours) {
        if (!t.chars().allMatch(c -> c < 0x80)) {
            return; // the byte reader reads ASCII lines only (it gives null for the others: see below)
        }
        byte[] b = ("ab\n" + t + "\nW x.cc:1] z").getBytes(StandardCharsets.ISO_8859_1);
        int[] bytes = LogLineRule.tfLine(b, 3, 3 + t.length());
        boolean looked = t.indexOf(']') > 0 && (t.contains(": E ") || t.contains(": W ") || t.contains(": F ")
                || t.startsWith("W ") || t.startsWith("E ") || t.startsWith("F "));
        if (!looked || ours == null) {
            assertThat(bytes).as("bytes of %s", t).isNull();
        } else {
            assertThat(bytes).as("bytes of %s", t).containsExactly(ours[0] + 3, ours[1] + 3, ours[2] + 3, ours[3] + 3);
        }
    }

    @Test
    void theByteReaderGivesNothingForOtherLines() {
        byte[] high = "2024-01-05 08:00:00: W a.cc:1] caf\u00e9".getBytes(StandardCharsets.UTF_8);
        assertThat(LogLineRule.tfLine(high, 0, high.length)).isNull();
        byte[] ok = "2024-01-05 08:00:00: W a.cc:1] cafe".getBytes(StandardCharsets.UTF_8);
        assertThat(LogLineRule.tfLine(ok, 0, ok.length)).containsExactly(21, 23, 29, 31);
    }

    @Test
    void agreesWithTheRegexOnCorpusLogs() throws IOException {
        Path bundles = Path.of("../shared/corpus/crash-bundles");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(bundles), "../shared/corpus not present");
        int lines = 0;
        try (Stream<Path> s = Files.walk(bundles)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".log") || f.toString().endsWith(".txt")).toList()) {
                for (String t : Files.readAllLines(p)) {
                    agrees(t);
                    lines++;
                }
            }
        }
        assertThat(lines).isGreaterThan(400);
    }

    @Test
    void agreesWithTheRegexOnSeededRandomLines() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        List<String> pieces = new ArrayList<>(List.of("2024-01-05 08:00:00", ".000001", ".1234567890", ": ", "W ", "E ", "I ", "F ",
                "tensorflow/core/x.cc", ":64", ":12345678", "]", " ", "] msg", "a", "-", "\\", "/", "9", "x:y", "\u2028", "é",
                "2024-1-05 08:00:00", ": W tensorflow/a.cc:1] hi", "\r", "\n", "abcdefgh"));
        for (int i = 0; i < 20000; i++) {
            StringBuilder sb = new StringBuilder();
            int n = 1 + r.nextInt(12);
            for (int j = 0; j < n; j++) {
                sb.append(pieces.get(r.nextInt(pieces.size())));
            }
            try {
                agrees(sb.toString());
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
        agrees("x".repeat(301) + ":1]");
        agrees("W " + "a".repeat(300) + ":1] ok");
        agrees("W " + "a".repeat(301) + ":1] ok");
    }
}
