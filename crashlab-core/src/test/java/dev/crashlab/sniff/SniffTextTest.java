package dev.crashlab.sniff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks that {@link SniffText}, which splits the head into lines by offsets and makes a line's string only when a
 * rule asks for it, shows every rule the same lines as splitting the whole head into {@code String}s and
 * {@link String#strip() stripping} each one (what it did until it was measured at a quarter of a large zip's ingest):
 * line by line, the window, the content lines, and the console markers' first line. The rules see the text only
 * through these, so equal answers here mean equal verdicts.
 */
class SniffTextTest {

    private static final long BASE_SEED = 0x51FF_7E47L;

    /** The lines as the eager split made them: cut at the limits, a final CR dropped, each also stripped. */
    record Eager(List<String> lines, List<String> trimmed) {

        static Eager of(String text) {
            List<String> lines = new ArrayList<>();
            List<String> trimmed = new ArrayList<>();
            int start = 0;
            int n = text.length();
            while (start <= n && lines.size() < SniffText.MAX_LINES) {
                int nl = text.indexOf('\n', start);
                int end = nl < 0 ? n : nl;
                int cut = Math.min(end, start + SniffText.MAX_LINE_CHARS);
                if (cut > start && text.charAt(cut - 1) == '\r') {
                    cut--;
                }
                String line = text.substring(start, cut);
                lines.add(line);
                trimmed.add(line.strip());
                if (nl < 0) {
                    break;
                }
                start = nl + 1;
            }
            return new Eager(lines, trimmed);
        }

        int windowEnd() {
            int nonBlank = 0;
            for (int i = 0; i < trimmed.size(); i++) {
                if (!trimmed.get(i).isEmpty() && ++nonBlank >= SniffText.WINDOW_NON_BLANK) {
                    return i + 1;
                }
            }
            return trimmed.size();
        }

        int firstNonBlank() {
            for (int i = 0; i < trimmed.size(); i++) {
                if (!trimmed.get(i).isEmpty()) {
                    return i;
                }
            }
            return -1;
        }

        List<Integer> contentLines(int max) {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < trimmed.size() && out.size() < max; i++) {
                String t = trimmed.get(i);
                if (!t.isEmpty() && !t.startsWith("#")) {
                    out.add(i);
                }
            }
            return out;
        }

        List<Integer> nonBlankLines(int max) {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < trimmed.size() && out.size() < max; i++) {
                if (!trimmed.get(i).isEmpty()) {
                    out.add(i);
                }
            }
            return out;
        }

        int nextDifferent(int i) {
            for (int j = i + 1; j < trimmed.size(); j++) {
                if (!trimmed.get(j).isEmpty() && !trimmed.get(j).equals(trimmed.get(i))) {
                    return j;
                }
            }
            return trimmed.size();
        }

        /** The console markers' loop as it was: each run of equal trimmed lines tested once. */
        int firstConsoleLine() {
            String previous = null;
            for (int i = 0; i < trimmed.size(); i++) {
                String t = trimmed.get(i);
                if (t.isEmpty() || t.equals(previous)) {
                    continue;
                }
                if (ConsoleMarkers.matches(t)) {
                    return i;
                }
                previous = t;
            }
            return -1;
        }
    }

    /** Asserts that every answer the rules can get from {@code text} is the eager split's. */
    static void assertSameAsEager(String what, String text) {
        Eager eager = Eager.of(text);
        SniffText lazy = new SniffText(text, "x.txt");
        assertEquals(eager.lines().size(), lazy.size(), what + ": line count");
        // a second pass reads the strings made by the first: asked twice, a line is the same
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < lazy.size(); i++) {
                assertEquals(eager.lines().get(i), lazy.line(i), what + ": line " + i);
                assertEquals(eager.trimmed().get(i), lazy.trimmed(i), what + ": trimmed line " + i);
                assertEquals(eager.trimmed().get(i).isEmpty(), lazy.blank(i), what + ": blank " + i);
                if (i > 0) {
                    assertEquals(eager.trimmed().get(i).equals(eager.trimmed().get(i - 1)), lazy.sameTrimmed(i, i - 1),
                            what + ": lines " + (i - 1) + " and " + i + " equal");
                }
            }
        }
        for (int i = 0; i < Math.min(lazy.size(), 300); i++) {
            assertEquals(eager.nextDifferent(i), lazy.nextDifferent(i), what + ": the line after " + i + " that differs");
        }
        assertEquals(eager.windowEnd(), lazy.windowEnd(), what + ": window end");
        assertEquals(eager.firstNonBlank(), lazy.firstNonBlank(), what + ": first non-blank line");
        assertEquals(eager.contentLines(SniffText.SHAPE_NON_BLANK), lazy.contentLines(SniffText.SHAPE_NON_BLANK), what + ": content lines");
        assertEquals(eager.nonBlankLines(SniffText.SHAPE_NON_BLANK), lazy.nonBlankLines(SniffText.SHAPE_NON_BLANK), what + ": non-blank lines");
        assertEquals(eager.firstConsoleLine(), ConsoleMarkers.firstLine(new SniffText(text, "x.txt")), what + ": first console line");
    }

    @Test
    void edgeShapesSplitAsBefore() {
        assertSameAsEager("empty", "");
        assertSameAsEager("one newline", "\n");
        assertSameAsEager("no final newline", "a\nb");
        assertSameAsEager("final newline", "a\nb\n");
        assertSameAsEager("CRLF and a lone CR", "a\r\nb\r\r\n\r\nc\r");
        assertSameAsEager("white space of every kind", " \t\u000B\f\u001C\u2003x\u00A0\u3000 \n\u2028\n\u0085y\u200B\n \t \n");
        assertSameAsEager("surrogates at the edges", "\uD83D\uDE00 a \uD83D\uDE00\n\uD800 \n \uDC00");
        assertSameAsEager("a line of exactly the cut", "a".repeat(SniffText.MAX_LINE_CHARS) + "\nb");
        assertSameAsEager("a line cut before its CR", "a".repeat(SniffText.MAX_LINE_CHARS - 1) + "\r\r\nb");
        assertSameAsEager("a line over the cut, spaces where it is cut",
                "x" + " ".repeat(SniffText.MAX_LINE_CHARS + 10) + "y\nz");
        assertSameAsEager("more lines than kept", "ok.\n".repeat(SniffText.MAX_LINES + 5));
        assertSameAsEager("a marker after a run of equal lines", "worker 0 starting\n" + "ok.\n".repeat(3000) + "Killed\n");
        assertSameAsEager("runs of equal lines around blank ones", "a\n\na\n  a  \nb\na\nSegmentation fault (core dumped)\n");
        assertSameAsEager("a run of CRLF lines, then one cut short", "ok.\r\n".repeat(500) + "ok.\r");
        assertSameAsEager("a run of blank lines", "x\n" + "\n".repeat(9000) + "Killed");
        assertSameAsEager("a run that reaches the line limit", "a\n" + "ok.\n".repeat(SniffText.MAX_LINES * 2));
        assertSameAsEager("a run whose last copy lacks its line end", "ok.\n".repeat(1000) + "ok.");
        assertSameAsEager("runs equal only once trimmed", ("ok.\n".repeat(37) + "ok. \n".repeat(41) + " ok.\n").repeat(30) + "Killed\n");
        assertSameAsEager("a run of long lines", ("y".repeat(SniffText.MAX_LINE_CHARS) + "\n").repeat(3) + "x".repeat(SniffText.MAX_LINE_CHARS + 1) + "\n"
                + ("x".repeat(SniffText.MAX_LINE_CHARS + 1) + "\n").repeat(2));
        assertSameAsEager("two-line period, not a run of one line", "a\nb\n".repeat(2000));
    }

    @Test
    void aLineOutsideTheTextIsRefusedAsTheListRefusedIt() {
        SniffText t = new SniffText("a\nb", "x.txt");
        assertThrows(IndexOutOfBoundsException.class, () -> t.line(2));
        assertThrows(IndexOutOfBoundsException.class, () -> t.trimmed(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> t.blank(2));
    }

    static LongStream seeds() {
        return LongStream.range(0, 48).map(i -> BASE_SEED + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomTextsSplitAsBefore(long seed) {
        String[] pieces = {"\n", "\r\n", "\r", " ", "\t", "\u2003", "\u00A0", "\u000B", "\u001F", "#", "> ", "ok.", "Killed",
            "Traceback (most recent call last):", "ValueError: x", "numpy  1.26.4", "cuda: 11.8", "\uD83D\uDE00", "\uD800",
            "Log Name:", "é", "x".repeat(1 + SniffText.MAX_LINE_CHARS / 3), "ok.\n".repeat(50), "ok.\r\n".repeat(7), "\n\n\n"};
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder();
        int target = r.nextInt(3) == 0 ? 70_000 : r.nextInt(4_000);
        while (sb.length() < target) {
            sb.append(pieces[r.nextInt(pieces.length)]);
        }
        assertSameAsEager("seed " + seed, sb.toString());
    }

    private static final Path CORPUS = Path.of("../shared/corpus");
    private static final Path FRESH = Path.of("../shared/corpus-fresh/crash-bundles");

    @Test
    void everyCorpusHeadSplitsAsBefore() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus not present: corpus split test skipped");
        List<Path> files = new ArrayList<>();
        for (Path root : List.of(CORPUS, FRESH)) {
            if (Files.isDirectory(root)) {
                try (Stream<Path> s = Files.walk(root)) {
                    s.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
            }
        }
        int text = 0;
        for (Path f : files) {
            byte[] head;
            try (InputStream in = Files.newInputStream(f)) {
                head = in.readNBytes(ArtifactSniffer.HEAD_BYTES);
            }
            HeadDecoder.Decoded d = HeadDecoder.decode(head, head.length);
            if (d.isText()) {
                assertSameAsEager(f.toString(), d.text());
                text++;
            }
        }
        assertTrue(text > 300, "only " + text + " text files under " + CORPUS.toAbsolutePath());
    }
}
