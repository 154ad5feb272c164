package dev.crashlab.diagnose;

import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Keeps the lines of a text artifact that {@code text:} matchers and the similarity look at: the head and
 * the tail of the file (a crash's last words are at its end; versions at its start), bounded in size.
 */
public final class TextLines {

    /** Lines kept from the start of each text artifact. */
    public static final int HEAD_LINES = 2_000;
    /** Lines kept from the end of each text artifact. */
    public static final int TAIL_LINES = 20_000;
    /** The longest line kept, in characters. */
    public static final int MAX_LINE = 4_000;

    private TextLines() {}

    /** Tells whether artifacts of this type have text lines to keep. */
    public static boolean hasText(ArtifactType type) {
        return type != ArtifactType.BINARY && type != ArtifactType.EVTX;
    }

    /** What {@link #read} kept and how many lines it saw. */
    public record Window(List<TextLine> lines, long linesSeen, long chars) {}

    /**
     * Reads every line of {@code text} and keeps at most {@code headLines} from its start and {@code tailLines}
     * from its end, each cut at {@link #MAX_LINE} characters, and no more than {@code maxChars} characters in all.
     */
    public static Window read(String artifact, BufferedReader text, int headLines, int tailLines, long maxChars)
            throws IOException {
        List<TextLine> head = new ArrayList<>();
        Deque<TextLine> tail = new ArrayDeque<>();
        long headChars = 0;
        long tailChars = 0;
        long n = 0;
        for (String line = text.readLine(); line != null; line = text.readLine()) {
            n++;
            String kept = line.length() > MAX_LINE ? line.substring(0, MAX_LINE) : line;
            if (head.size() < headLines && headChars + kept.length() <= maxChars) {
                head.add(new TextLine(artifact, n, kept));
                headChars += kept.length();
                continue;
            }
            if (tailLines == 0) {
                continue;
            }
            tail.addLast(new TextLine(artifact, n, kept));
            tailChars += kept.length();
            while (tail.size() > tailLines || (!tail.isEmpty() && headChars + tailChars > maxChars)) {
                tailChars -= tail.removeFirst().text().length();
            }
        }
        List<TextLine> out = new ArrayList<>(head.size() + tail.size());
        out.addAll(head);
        out.addAll(tail);
        return new Window(out, n, headChars + tailChars);
    }

    /**
     * Does what {@link #read} does on text already split into lines, reading the raw bytes of an ASCII-compatible
     * encoding ({@code cs}: UTF-8, Windows-1252) instead: a line becomes a {@code String} only when it is kept in the
     * head, when it holds non-ASCII bytes (to count its characters), or at the end for the tail. The tail's lines wait as
     * bytes in a ring, bounded like the characters {@link #read} keeps.
     *
     * <p>NOTE: a line ends at {@code \n}, {@code \r\n} or a lone {@code \r}, as {@link BufferedReader#readLine} has it;
     * splitting the bytes first and decoding each line gives the same characters for these encodings. At most
     * {@code 4 * MAX_LINE} bytes of a line are looked at (enough for {@link #MAX_LINE} characters).
     */
    public static Window readBytes(String artifact, InputStream in, Charset cs, int headLines, int tailLines, long maxChars)
            throws IOException {
        ByteWindow w = new ByteWindow(artifact, cs, headLines, tailLines, maxChars);
        byte[] buf = new byte[1 << 16];
        int lineCap = MAX_LINE_BYTES;
        byte[] line = new byte[lineCap];
        int lineLen = 0;        // bytes kept of the current line
        boolean any = false;    // the current line has begun (some byte, or nothing yet but not at a line start)
        boolean high = false;   // the current line's kept bytes hold a non-ASCII byte
        boolean pendingCr = false;
        for (int n; (n = in.read(buf, 0, buf.length)) > 0; ) {
            int pos = 0;
            if (pendingCr) {
                pendingCr = false;
                if (buf[0] == '\n') {
                    pos = 1;
                }
            }
            while (pos < n) {
                int end = pos;
                int or = 0;
                while (end < n) {
                    byte b = buf[end];
                    if (b == '\n' || b == '\r') {
                        break;
                    }
                    or |= b;
                    end++;
                }
                int take = Math.min(end - pos, lineCap - lineLen);
                if (take > 0) {
                    System.arraycopy(buf, pos, line, lineLen, take);
                    lineLen += take;
                    if (or < 0) {
                        for (int i = pos; i < pos + take && !high; i++) {
                            high = buf[i] < 0;
                        }
                    }
                }
                if (end == n) {
                    any = any || end > pos;
                    break;
                }
                w.line(line, 0, lineLen, high);
                lineLen = 0;
                any = false;
                high = false;
                if (buf[end] == '\r') {
                    if (end + 1 < n) {
                        pos = buf[end + 1] == '\n' ? end + 2 : end + 1;
                    } else {
                        pendingCr = true;
                        pos = n;
                    }
                } else {
                    pos = end + 1;
                }
            }
        }
        if (any || lineLen > 0) {
            w.line(line, 0, lineLen, high);
        }
        return w.finish();
    }

    /** The most bytes of a line {@link ByteWindow#line} looks at. */
    public static final int MAX_LINE_BYTES = 4 * MAX_LINE;

    /**
     * Returns a window fed lines already split (by a reader shared with the parsers), keeping what {@link #readBytes}
     * keeps: give it every line's first bytes (at most {@link #MAX_LINE_BYTES}) in order, then call
     * {@link ByteWindow#finish}.
     */
    public static ByteWindow byteWindow(String artifact, Charset cs, int headLines, int tailLines, long maxChars) {
        return new ByteWindow(artifact, cs, headLines, tailLines, maxChars);
    }

    /** The state of {@link #readBytes}: the head as lines, the tail as bytes in a ring. */
    public static final class ByteWindow implements dev.crashlab.parse.ArtifactLines.RawLines {
        private final String artifact;
        private final Charset cs;
        private final int headLines;
        private final int tailLines;
        private final long maxChars;
        private final List<TextLine> head = new ArrayList<>();
        private long headChars;
        private long tailChars;
        private long n;
        // the tail: a queue of lines (circular arrays), their ASCII bytes in a byte ring, one after the other from
        // ringStart (the oldest line's), other lines as strings
        private final int mask;
        private final long[] number;
        private final int[] bytes;
        private final int[] chars;
        private final String[] decoded;
        private int first;
        private int count;
        private byte[] ring = new byte[1 << 16];
        private long ringStart; // absolute position of the oldest byte still needed
        private long ringEnd;   // absolute position past the newest byte

        ByteWindow(String artifact, Charset cs, int headLines, int tailLines, long maxChars) {
            this.artifact = artifact;
            this.cs = cs;
            this.headLines = headLines;
            this.tailLines = tailLines;
            this.maxChars = maxChars;
            // a power of two over tailLines: a slot is an index masked, with no wrap-around test whose first taking would
            // send the compiled code back to the interpreter in the middle of a long file
            int cap = Integer.highestOneBit(Math.max(tailLines, 1)) << 1;
            mask = cap - 1;
            number = new long[cap];
            bytes = new int[cap];
            chars = new int[cap];
            decoded = new String[cap];
        }

        /** Takes the next line: its first {@code len} bytes at {@code b[off]}, {@code high} if any is over 0x7F. */
        @Override
        public void line(byte[] b, int off, int len, boolean high) {
            n++;
            String text = null;
            int keptChars;
            int keptBytes;
            if (high) {
                text = new String(b, off, len, cs);
                if (text.length() > MAX_LINE) {
                    text = text.substring(0, MAX_LINE);
                }
                keptChars = text.length();
                keptBytes = 0;
            } else {
                keptChars = Math.min(len, MAX_LINE);
                keptBytes = keptChars;
            }
            if (head.size() < headLines && headChars + keptChars <= maxChars) {
                head.add(new TextLine(artifact, n, text != null ? text : new String(b, off, keptBytes, java.nio.charset.StandardCharsets.ISO_8859_1)));
                headChars += keptChars;
                return;
            }
            if (tailLines == 0) {
                return;
            }
            int slot = (first + count) & mask;
            number[slot] = n;
            chars[slot] = keptChars;
            bytes[slot] = keptBytes;
            if (text != null) {
                decoded[slot] = text; // an ASCII line's slot is null already (cleared when its last line left)
            }
            if (keptBytes > 0) {
                append(b, off, keptBytes);
            }
            count++;
            tailChars += keptChars;
            while (count > tailLines || (count > 0 && headChars + tailChars > maxChars)) {
                tailChars -= chars[first];
                ringStart += bytes[first];
                if (decoded[first] != null) {
                    decoded[first] = null;
                }
                first = (first + 1) & mask;
                count--;
            }
        }

        private void append(byte[] b, int off, int len) {
            long need = ringEnd + len - ringStart;
            if (need > ring.length) {
                long size = ring.length;
                while (size < need) {
                    size *= 2;
                }
                byte[] grown = new byte[(int) Math.min(size, Integer.MAX_VALUE - 8)];
                int live = (int) (ringEnd - ringStart);
                byte[] linear = new byte[live];
                copyOut(ringStart, linear, 0, live, ring);
                // re-base: absolute positions stay, the new ring maps them modulo its own length (one wrap at most: the
                // live bytes are fewer than its length), copied as two runs
                int at = ringIndex(ringStart, grown.length);
                int first = Math.min(live, grown.length - at);
                System.arraycopy(linear, 0, grown, at, first);
                System.arraycopy(linear, first, grown, 0, live - first);
                ring = grown;
            }
            int start = ringIndex(ringEnd, ring.length);
            int first = Math.min(len, ring.length - start);
            System.arraycopy(b, off, ring, start, first);
            System.arraycopy(b, off + first, ring, 0, len - first);
            ringEnd += len;
        }

        // a position's index in the ring: a mask where the length is a power of two (it is, short of 1 GiB)
        private static int ringIndex(long position, int length) {
            return (length & (length - 1)) == 0 ? (int) (position & (length - 1)) : (int) (position % length);
        }

        private static void copyOut(long from, byte[] dst, int dstPos, int len, byte[] ring) {
            int start = ringIndex(from, ring.length);
            int first = Math.min(len, ring.length - start);
            System.arraycopy(ring, start, dst, dstPos, first);
            System.arraycopy(ring, 0, dst, dstPos + first, len - first);
        }

        @Override
        public int maxLineBytes() {
            return MAX_LINE_BYTES;
        }

        /** Returns what was kept. */
        public Window finish() {
            List<TextLine> out = new ArrayList<>(head.size() + count);
            out.addAll(head);
            byte[] tmp = new byte[MAX_LINE];
            long at = ringStart;
            for (int k = 0; k < count; k++) {
                int slot = (first + k) & mask;
                String text = decoded[slot];
                long from = at;
                at += bytes[slot];
                if (text == null) {
                    copyOut(from, tmp, 0, bytes[slot], ring);
                    text = new String(tmp, 0, bytes[slot], java.nio.charset.StandardCharsets.ISO_8859_1);
                }
                out.add(new TextLine(artifact, number[slot], text));
            }
            return new Window(out, n, headChars + tailChars);
        }
    }
}
