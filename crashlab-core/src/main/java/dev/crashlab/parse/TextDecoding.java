package dev.crashlab.parse;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens a text artifact in the encoding its bytes show: Windows tools write UTF-16 (often without a BOM)
 * and legacy consoles Windows-1252, and a parser should not have to care.
 */
public final class TextDecoding {

    private static final int SAMPLE = 64 * 1024;
    private static final Charset CP1252 = Charset.forName("windows-1252");

    private TextDecoding() {}

    /** Opens {@code file} as text in its detected encoding; malformed sequences become U+FFFD. */
    public static BufferedReader open(Path file) throws IOException {
        return open(Files.newInputStream(file));
    }

    /**
     * Reads {@code bytes} as text in the encoding its first bytes show; malformed sequences become U+FFFD.
     *
     * <p>NOTE: reads the stream once (the sample is buffered, not re-read); closing the reader closes it.
     */
    public static BufferedReader open(InputStream bytes) throws IOException {
        BufferedInputStream in = new BufferedInputStream(bytes, SAMPLE + 1);
        try {
            in.mark(SAMPLE + 1);
            byte[] head = in.readNBytes(SAMPLE);
            in.reset();
            Detected d = detect(head, head.length);
            in.skipNBytes(d.bomLength());
            CharsetDecoder decoder = d.charset().newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            return new BufferedReader(new InputStreamReader(in, decoder), 1 << 16);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /**
     * The text of {@code bytes}, which {@code detected} says are UTF-16, as UTF-8 without a byte order mark: what a
     * reader of UTF-8 bytes (the paste forms' cleaner, the shared line scan) can read. Malformed sequences become U+FFFD.
     */
    public static InputStream toUtf8(InputStream bytes, Detected detected) throws IOException {
        bytes.skipNBytes(detected.bomLength());
        java.io.Reader chars = new InputStreamReader(bytes, detected.charset().newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE));
        return new InputStream() {
            private final char[] cbuf = new char[8192];
            private ByteBuffer out = ByteBuffer.allocate(0);
            private final java.nio.charset.CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
            private char pendingHigh;

            private boolean fill() throws IOException {
                while (!out.hasRemaining()) {
                    int n = chars.read(cbuf, pendingHigh != 0 ? 1 : 0, cbuf.length - 1);
                    int start = 0;
                    if (pendingHigh != 0) {
                        cbuf[0] = pendingHigh;
                        pendingHigh = 0;
                        if (n < 0) {
                            n = 0;
                        }
                        n += 1;
                    } else if (n < 0) {
                        return false;
                    }
                    int end = start + n;
                    // a surrogate pair split between two reads is encoded whole on the next
                    if (end > start && Character.isHighSurrogate(cbuf[end - 1])) {
                        pendingHigh = cbuf[--end];
                    }
                    out = encoder.encode(java.nio.CharBuffer.wrap(cbuf, start, end - start));
                }
                return true;
            }

            @Override
            public int read() throws IOException {
                return fill() ? out.get() & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                if (!fill()) {
                    return -1;
                }
                int n = Math.min(len, out.remaining());
                out.get(b, off, n);
                return n;
            }

            @Override
            public void close() throws IOException {
                chars.close();
            }
        };
    }

    /** Tells whether the encoding is UTF-16 of either byte order. */
    public static boolean isUtf16(Detected d) {
        return d.charset().equals(StandardCharsets.UTF_16LE) || d.charset().equals(StandardCharsets.UTF_16BE);
    }

    /** An encoding and the length of its byte order mark. */
    public record Detected(Charset charset, int bomLength) {}

    /** Detects the encoding of text whose first {@code length} bytes are {@code head}. */
    public static Detected detect(byte[] head, int length) {
        if (length >= 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB && (head[2] & 0xFF) == 0xBF) {
            return new Detected(StandardCharsets.UTF_8, 3);
        }
        if (length >= 2 && (head[0] & 0xFF) == 0xFF && (head[1] & 0xFF) == 0xFE) {
            return new Detected(StandardCharsets.UTF_16LE, 2);
        }
        if (length >= 2 && (head[0] & 0xFF) == 0xFE && (head[1] & 0xFF) == 0xFF) {
            return new Detected(StandardCharsets.UTF_16BE, 2);
        }
        // BOM-less UTF-16: ASCII text has a NUL in every other byte
        int evenNul = 0;
        int oddNul = 0;
        int pairs = Math.min(length, 4096) / 2;
        for (int i = 0; i < pairs; i++) {
            if (head[2 * i] == 0) {
                evenNul++;
            }
            if (head[2 * i + 1] == 0) {
                oddNul++;
            }
        }
        if (pairs >= 2 && oddNul > pairs * 0.4 && evenNul < pairs * 0.05) {
            return new Detected(StandardCharsets.UTF_16LE, 0);
        }
        if (pairs >= 2 && evenNul > pairs * 0.4 && oddNul < pairs * 0.05) {
            return new Detected(StandardCharsets.UTF_16BE, 0);
        }
        return new Detected(validUtf8(head, length) ? StandardCharsets.UTF_8 : CP1252, 0);
    }

    private static boolean validUtf8(byte[] head, int length) {
        // the sample may end inside a multi-byte sequence: drop up to 3 trailing bytes of one
        int end = length;
        for (int back = 1; back <= 3 && end - back >= 0; back++) {
            int b = head[end - back] & 0xFF;
            if (b >= 0xC0) {
                end -= back;
                break;
            }
            if (b < 0x80) {
                break;
            }
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(head, 0, end));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * Tells whether {@code b[from, to)} holds a byte over 0x7F, eight bytes at a time (a byte loop OR-ing into an int is
     * not turned into vector instructions: it ran at about 1 GB/s, a sixth of the reading pass).
     */
    public static boolean anyHigh(byte[] b, int from, int to) {
        long or = 0;
        int i = from;
        for (int last = to - 8; i <= last; i += 8) {
            or |= (long) LONGS.get(b, i);
        }
        for (; i < to; i++) {
            or |= b[i];
        }
        return (or & 0x8080808080808080L) != 0;
    }
}
