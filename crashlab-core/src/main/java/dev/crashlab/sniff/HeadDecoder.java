package dev.crashlab.sniff;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns the head bytes of an artifact into text, or reports that they are not text.
 *
 * <p>Windows tools (Event Viewer, PowerShell redirection) often write UTF-16, with or without a byte
 * order mark, so the encoding is decided before the text-vs-binary test: UTF-16 text is half NUL
 * bytes and would otherwise look binary.
 */
final class HeadDecoder {

    /** How many leading bytes the UTF-16 and binary statistics look at; enough to be stable, cheap to count. */
    private static final int SAMPLE_BYTES = 8 * 1024;

    private HeadDecoder() {}

    /** Carries the decoded text, which is null when the bytes are not text, and the encoding used. */
    record Decoded(String text, String encoding) {
        boolean isText() {
            return text != null;
        }
    }

    /** Decodes the first {@code length} bytes of {@code head}; never throws. */
    static Decoded decode(byte[] head, int length) {
        int len = Math.max(0, Math.min(length, head.length));
        if (len >= 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB && (head[2] & 0xFF) == 0xBF) {
            return eightBit(head, 3, len);
        }
        if (len >= 2 && (head[0] & 0xFF) == 0xFF && (head[1] & 0xFF) == 0xFE) {
            return sixteenBit(head, 2, len, StandardCharsets.UTF_16LE);
        }
        if (len >= 2 && (head[0] & 0xFF) == 0xFE && (head[1] & 0xFF) == 0xFF) {
            return sixteenBit(head, 2, len, StandardCharsets.UTF_16BE);
        }
        Charset bomless = bomlessUtf16(head, len);
        if (bomless != null) {
            return sixteenBit(head, 0, len, bomless);
        }
        return eightBit(head, 0, len);
    }

    /**
     * Guesses BOM-less UTF-16 from where the NUL bytes sit. UTF-16LE stores every ASCII character with a
     * NUL in its odd byte, so mostly-ASCII text shows NULs on one side only; text rich in box drawing or
     * CJK shows fewer NULs, but its spaces and line breaks ({@code 20 00}, {@code 0A 00}) still sit on
     * one side. Random binary data shows neither pattern, and the decoded text must pass the text test.
     */
    private static Charset bomlessUtf16(byte[] b, int len) {
        int n = Math.min(len, SAMPLE_BYTES) & ~1;
        if (n < 4) {
            return null;
        }
        int evenZeros = 0;
        int oddZeros = 0;
        int spacesLe = 0;
        int spacesBe = 0;
        for (int i = 0; i < n; i += 2) {
            int lo = b[i] & 0xFF;
            int hi = b[i + 1] & 0xFF;
            if (lo == 0) {
                evenZeros++;
            }
            if (hi == 0) {
                oddZeros++;
            }
            if (hi == 0 && isSpaceOrBreak(lo)) {
                spacesLe++;
            }
            if (lo == 0 && isSpaceOrBreak(hi)) {
                spacesBe++;
            }
        }
        int pairs = n / 2;
        if ((oddZeros * 5 >= pairs && evenZeros * 20 <= oddZeros) || (spacesLe * 50 >= pairs && spacesBe * 10 <= spacesLe)) {
            return StandardCharsets.UTF_16LE;
        }
        if ((evenZeros * 5 >= pairs && oddZeros * 20 <= evenZeros) || (spacesBe * 50 >= pairs && spacesLe * 10 <= spacesBe)) {
            return StandardCharsets.UTF_16BE;
        }
        return null;
    }

    private static boolean isSpaceOrBreak(int c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private static Decoded sixteenBit(byte[] b, int from, int len, Charset cs) {
        // A head cut at an odd offset (or a truncated file) leaves half a code unit; drop it.
        int end = from + ((len - from) & ~1);
        String s = lenientDecode(b, from, end, cs);
        // Trailing NUL code units are pre-allocated file space, not content.
        int e = s.length();
        while (e > 0 && s.charAt(e - 1) == '\0') {
            e--;
        }
        s = s.substring(0, e);
        return looksLikeText(s) ? new Decoded(s, cs.name()) : new Decoded(null, cs.name());
    }

    private static Decoded eightBit(byte[] b, int from, int len) {
        // A log cut short by a crash often ends in a run of NULs (space the file system had reserved).
        int end = len;
        while (end > from && b[end - 1] == 0) {
            end--;
        }
        if (!bytesLookLikeText(b, from, end)) {
            return new Decoded(null, "binary");
        }
        int utf8End = withoutPartialUtf8Tail(b, from, end);
        String utf8 = strictUtf8(b, from, utf8End);
        if (utf8 != null) {
            return new Decoded(utf8, StandardCharsets.UTF_8.name());
        }
        // A few bad bytes in otherwise valid UTF-8 (a log spliced from two sources) keep the UTF-8 reading,
        // so localised markers (Chinese, Russian field names) still match.
        String lenient = lenientDecode(b, from, utf8End, StandardCharsets.UTF_8);
        long replaced = lenient.chars().filter(c -> c == '\uFFFD').count();
        if (replaced * 100 <= lenient.length()) {
            return new Decoded(lenient, StandardCharsets.UTF_8.name());
        }
        // Not UTF-8: a legacy code page (cp1252, cp1251...). ISO-8859-1 maps every byte, and the markers
        // the rules look for are ASCII, so the exact code page does not matter here.
        return new Decoded(new String(b, from, end - from, StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1.name());
    }

    /** Tells text from binary by NUL bytes and C0 control characters (tab, newlines, form feed, ESC allowed). */
    private static boolean bytesLookLikeText(byte[] b, int from, int end) {
        int n = Math.min(end - from, SAMPLE_BYTES);
        if (n <= 0) {
            return true;
        }
        int nuls = 0;
        int controls = 0;
        for (int i = from; i < from + n; i++) {
            int c = b[i] & 0xFF;
            if (c == 0) {
                nuls++;
            } else if (isSuspiciousControl(c)) {
                controls++;
            }
        }
        // Real text has no NULs at all; allow a stray one or two, not a pattern of them.
        return nuls * 1000 <= n && nuls <= 8 && (controls + nuls) * 20 <= n;
    }

    private static boolean looksLikeText(String s) {
        int n = Math.min(s.length(), SAMPLE_BYTES);
        if (n == 0) {
            return true;
        }
        int bad = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '\uFFFD' || (c < 0x80 && isSuspiciousControl(c)) || isImplausibleChar(c)) {
                bad++;
            }
        }
        return bad * 20 <= n;
    }

    /**
     * Flags code units that real text hardly ever holds but random bytes read as UTF-16 often do
     * (unassigned and private-use code points, lone surrogates), so noise behind a stray {@code FF FE}
     * is not taken for text.
     */
    private static boolean isImplausibleChar(char c) {
        if (c < 0x80) {
            return false;
        }
        int type = Character.getType(c);
        return type == Character.UNASSIGNED || type == Character.PRIVATE_USE || type == Character.CONTROL;
    }

    private static boolean isSuspiciousControl(int c) {
        if (c == 0x7F) {
            return true;
        }
        if (c >= 0x20) {
            return false;
        }
        // \b \t \n \v \f \r and ESC (ANSI colour codes in captured terminals) occur in real text.
        return c != 0x08 && c != '\t' && c != '\n' && c != 0x0B && c != '\f' && c != '\r' && c != 0x1B;
    }

    /** Excludes a multi-byte UTF-8 sequence that the head cut in two, so it is not mistaken for bad UTF-8. */
    private static int withoutPartialUtf8Tail(byte[] b, int from, int end) {
        for (int back = 1; back <= 3 && end - back >= from; back++) {
            int c = b[end - back] & 0xFF;
            if ((c & 0xC0) == 0x80) {
                continue; // continuation byte: keep looking for the lead byte
            }
            int need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
            return need > back ? end - back : end;
        }
        return end;
    }

    private static String strictUtf8(byte[] b, int from, int end) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return d.decode(ByteBuffer.wrap(b, from, end - from)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static String lenientDecode(byte[] b, int from, int end, Charset cs) {
        CharsetDecoder d = cs.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try {
            CharBuffer out = d.decode(ByteBuffer.wrap(b, from, end - from));
            return out.toString();
        } catch (CharacterCodingException e) {
            // Unreachable with REPLACE; fall back to the JDK's own replacing decoder.
            return new String(b, from, end - from, cs);
        }
    }
}
