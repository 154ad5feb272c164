package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reading pass's walk over a chunk ({@link LiteralScan#scanLines}: several parts of it at once) finds, for every
 * line, what scanning that line alone finds; and {@link LiteralScan#plainAscii} agrees with a byte loop.
 */
class LiteralScanTest {

    private static final LiteralScan SCAN = SharedLineScan.scanFor(Parsers.forType(ArtifactType.CONSOLE_LOG));

    // the lines of b[from, to) as scanning each alone finds them: the position of its end, then its bits
    private static List<Long> expected(byte[] b, int from, int to) {
        List<Long> out = new ArrayList<>();
        int start = from;
        for (int i = from; i < to; i++) {
            if (b[i] == '\n' || b[i] == '\r') {
                out.add(((long) i << 32) | (SCAN.scan(b, start, i) & 0xffffffffL));
                start = i + 1;
            }
        }
        return out;
    }

    private static List<Long> walked(byte[] b, int from, int to) {
        LiteralScan.Lines[] parts = new LiteralScan.Lines[LiteralScan.WALKS];
        for (int k = 0; k < parts.length; k++) {
            parts[k] = new LiteralScan.Lines();
        }
        SCAN.scanLines(b, from, to, parts);
        List<Long> out = new ArrayList<>();
        for (LiteralScan.Lines p : parts) {
            for (int k = 0; k < p.count; k++) {
                out.add(((long) p.ends[k] << 32) | (p.found[k] & 0xffffffffL));
            }
        }
        return out;
    }

    @Test
    void theWalkFindsWhatEachLineAloneHoldsOnSeededRandomChunks() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        List<String> literals = SCAN.literals();
        String[] ends = {"\n", "\r", "\r\n", "\n\n"};
        for (int round = 0; round < 3000; round++) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            int lead = r.nextInt(5);
            for (int i = 0; i < lead; i++) {
                text.write('x'); // the chunk starts past the buffer's start
            }
            int lines = r.nextInt(round % 10 == 0 ? 3 : 40);
            for (int l = 0; l < lines; l++) {
                int pieces = r.nextInt(round % 7 == 0 ? 60 : 6);
                for (int p = 0; p < pieces; p++) {
                    switch (r.nextInt(4)) {
                        case 0 -> text.writeBytes(literals.get(r.nextInt(literals.size())).getBytes(StandardCharsets.UTF_8));
                        case 1 -> {
                            // a literal cut short, or a literal's bytes run into another's
                            byte[] w = literals.get(r.nextInt(literals.size())).getBytes(StandardCharsets.UTF_8);
                            text.write(w, 0, r.nextInt(w.length + 1));
                        }
                        case 2 -> text.write(r.nextInt(256) == 0 ? 0xC3 : ' ' + r.nextInt(95));
                        default -> text.writeBytes("tensorflow/core ".getBytes(StandardCharsets.US_ASCII));
                    }
                }
                // a line end, except where a literal is split across a line end (it must not be found)
                text.writeBytes(ends[r.nextInt(ends.length)].getBytes(StandardCharsets.US_ASCII));
            }
            byte[] b = text.toByteArray();
            try {
                assertThat(walked(b, lead, b.length)).isEqualTo(expected(b, lead, b.length));
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", round " + round + ": " + e.getMessage(), e);
            }
        }
    }

    @Test
    void aLineLongerThanAPartAndEmptyChunksAreWalkedWhole() {
        byte[] one = ("x".repeat(5000) + "CUDA out of memory" + "y".repeat(3000) + "\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(walked(one, 0, one.length)).isEqualTo(expected(one, 0, one.length)).hasSize(1);
        byte[] mixed = ("Traceback (most recent call last):\n" + "z".repeat(9000) + " Killed\nok\n\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(walked(mixed, 0, mixed.length)).isEqualTo(expected(mixed, 0, mixed.length)).hasSize(4);
        assertThat(walked(mixed, 3, 3)).isEmpty();
    }

    @Test
    void plainAsciiAgreesWithAByteLoopAtEveryOffset() {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        for (int round = 0; round < 20000; round++) {
            byte[] b = new byte[r.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (' ' + r.nextInt(95));
            }
            if (b.length > 0 && r.nextBoolean()) {
                // one odd byte anywhere: a line end, a byte over 0x7F, or bytes next to them
                int at = r.nextInt(b.length);
                byte[] odd = {'\n', '\r', (byte) 0x80, (byte) 0xFF, (byte) 0x8A, (byte) 0x8D, 0x0B, 0x0C, 0x09, 0x0E, 0};
                b[at] = odd[r.nextInt(odd.length)];
            }
            int from = b.length == 0 ? 0 : r.nextInt(b.length);
            int to = from + (b.length == from ? 0 : r.nextInt(b.length - from + 1));
            boolean plain = true;
            for (int i = from; i < to; i++) {
                plain &= b[i] != '\n' && b[i] != '\r' && b[i] >= 0;
            }
            assertThat(LiteralScan.plainAscii(b, from, to)).as("seed %d round %d", seed, round).isEqualTo(plain);
        }
    }
}
