package dev.crashlab.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.TextLines;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.TextDecoding;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The text window read from raw bytes (lines become strings only when kept) keeps exactly what reading decoded lines
 * keeps: the same lines, numbers, text, count and characters, on seeded random logs with every line ending, non-ASCII
 * and undecodable bytes, over-long lines, chunk boundaries, and small budgets that move lines between head and tail.
 */
class TextWindowBytesTest {

    private static TextLines.Window decoded(byte[] bytes, int head, int tail, long maxChars) throws IOException {
        try (BufferedReader r = TextDecoding.open(new ByteArrayInputStream(bytes))) {
            return TextLines.read("a.log", r, head, tail, maxChars);
        }
    }

    private static TextLines.Window fromBytes(byte[] bytes, int head, int tail, long maxChars) throws IOException {
        return BundleReader.window(new ParseInput("a.log", ArtifactType.CONSOLE_LOG, bytes.length, () -> new ByteArrayInputStream(bytes)),
                head, tail, maxChars);
    }

    private static void same(byte[] bytes, int head, int tail, long maxChars) throws IOException {
        TextLines.Window want = decoded(bytes, head, tail, maxChars);
        TextLines.Window got = fromBytes(bytes, head, tail, maxChars);
        assertThat(got.linesSeen()).isEqualTo(want.linesSeen());
        assertThat(got.chars()).isEqualTo(want.chars());
        assertThat(got.lines()).containsExactlyElementsOf(want.lines());
    }

    private static byte[] randomLog(Random rnd, int lines, boolean utf8) {
        String[] words = {"step", "loss=0.1", "W tensorflow/core/x.cc:12]", "Traceback", "é", "Ω", "€", "日本", "😀", "\t", "  ", "==", "|"};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (utf8 && rnd.nextInt(4) == 0) {
            out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        }
        for (int i = 0; i < lines; i++) {
            int kind = rnd.nextInt(40);
            if (kind == 0) {
                out.writeBytes("x".repeat(3_990 + rnd.nextInt(20)).getBytes(StandardCharsets.US_ASCII)); // around the cap
            } else if (kind == 1) {
                out.writeBytes("y".repeat(17_000 + rnd.nextInt(70_000)).getBytes(StandardCharsets.US_ASCII)); // past the byte cap and a chunk
            } else if (kind == 2 && utf8) {
                out.writeBytes("é".repeat(3_000 + rnd.nextInt(6_000)).getBytes(StandardCharsets.UTF_8)); // non-ASCII past the cap
            } else if (kind == 3) {
                byte[] junk = new byte[1 + rnd.nextInt(30)];
                rnd.nextBytes(junk);
                for (int j = 0; j < junk.length; j++) {
                    if (junk[j] == '\n' || junk[j] == '\r') {
                        junk[j] = '?';
                    }
                }
                out.writeBytes(junk); // undecodable in UTF-8, every byte mapped or replaced in Windows-1252
            } else if (kind != 4) { // kind 4: an empty line
                int n = rnd.nextInt(12);
                StringBuilder sb = new StringBuilder();
                for (int w = 0; w < n; w++) {
                    String word = words[rnd.nextInt(words.length)];
                    sb.append(word).append(' ');
                }
                String s = utf8 ? sb.toString() : sb.toString().replaceAll("[^\\x00-\\x7F€é]", "?");
                out.writeBytes(s.getBytes(utf8 ? StandardCharsets.UTF_8 : java.nio.charset.Charset.forName("windows-1252")));
            }
            if (i < lines - 1 || rnd.nextBoolean()) {
                out.writeBytes(switch (rnd.nextInt(6)) {
                    case 0 -> new byte[] {'\r', '\n'};
                    case 1 -> new byte[] {'\r'};
                    default -> new byte[] {'\n'};
                });
            }
        }
        return out.toByteArray();
    }

    @Test
    void keepsWhatReadingDecodedLinesKeepsOnRandomLogs() throws IOException {
        Random rnd = new Random(20261126);
        for (int round = 0; round < 150; round++) {
            boolean utf8 = round % 3 != 0;
            byte[] log = randomLog(rnd, 1 + rnd.nextInt(round < 100 ? 60 : 3_000), utf8);
            same(log, TextLines.HEAD_LINES, TextLines.TAIL_LINES, 32_000_000);
            same(log, rnd.nextInt(5), rnd.nextInt(8), 1 + rnd.nextInt(20_000));
            same(log, 0, 0, 1_000);
            same(log, 3, 0, 1_000_000);
        }
    }

    @Test
    void linesEndingsAtChunkEdges() throws IOException {
        // a \r as the last byte of a 64 KiB read, then \n as the first of the next: one line end, not two
        for (int shift = -2; shift <= 2; shift++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes("a".repeat((1 << 16) - 1 + shift).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes("\r\nsecond\r\rfourth\r".getBytes(StandardCharsets.US_ASCII));
            same(out.toByteArray(), 10, 10, 1_000_000);
            same(out.toByteArray(), 0, 2, 100);
        }
        same(new byte[0], 10, 10, 100);
        same("\n".getBytes(StandardCharsets.US_ASCII), 10, 10, 100);
        same("\r".getBytes(StandardCharsets.US_ASCII), 10, 10, 100);
        same("no end".getBytes(StandardCharsets.US_ASCII), 10, 10, 100);
    }

    @Test
    void utf16IsDecodedFirstAndKeepsTheSame() throws IOException {
        byte[] text = "first\r\nzweite Zeile é\nthird\n".repeat(50).getBytes(StandardCharsets.UTF_16LE);
        same(text, 5, 7, 1_000_000);
        assertThat(fromBytes(text, 5, 7, 1_000_000).lines().get(1).text()).isEqualTo("zweite Zeile é");
    }

    @Test
    void aLongTailReusesItsRingAcrossManyLines() throws IOException {
        // far more tail lines than fit: the ring wraps many times and grows while the budget allows
        StringBuilder sb = new StringBuilder();
        Random rnd = new Random(3);
        for (int i = 0; i < 60_000; i++) {
            sb.append("line ").append(i).append(" ").append("z".repeat(rnd.nextInt(300))).append('\n');
        }
        byte[] log = sb.toString().getBytes(StandardCharsets.US_ASCII);
        same(log, 100, 20_000, 32_000_000);
        same(log, 100, 20_000, 500_000);
        List<dev.crashlab.diagnose.TextLine> kept = fromBytes(log, 100, 20_000, 32_000_000).lines();
        assertThat(kept.getLast().line()).isEqualTo(60_000);
        assertThat(kept.getLast().text()).startsWith("line 59999 ");
    }

    @Test
    void readsTheFixtureLogsAlike() throws IOException {
        for (Path p : BundleReaderTest.files(BundleReaderTest.FIXTURES, 1 << 20)) {
            byte[] b = java.nio.file.Files.readAllBytes(p);
            same(b, TextLines.HEAD_LINES, TextLines.TAIL_LINES, 32_000_000);
            same(b, 7, 11, 2_000);
        }
    }
}
