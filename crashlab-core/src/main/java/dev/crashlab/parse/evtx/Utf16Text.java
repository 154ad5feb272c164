package dev.crashlab.parse.evtx;

/**
 * Decodes UTF-16LE text from a chunk, replacing unpaired surrogates with U+FFFD and counting them, so the
 * text stays valid Unicode (and the XML well-formed) while the reader can say a record's text was broken.
 */
final class Utf16Text {

    private Utf16Text() {}

    /**
     * Decodes {@code chars} UTF-16LE code units at {@code offset}; unpaired surrogates become U+FFFD and
     * are counted into {@code bad[0]}.
     */
    static String decode(byte[] buf, int offset, int chars, int[] bad) {
        char[] out = new char[chars];
        boolean ascii = true;
        for (int i = 0; i < chars; i++) {
            char c = (char) ((buf[offset + 2 * i] & 0xff) | (buf[offset + 2 * i + 1] & 0xff) << 8);
            out[i] = c;
            if (c >= 0x80) {
                ascii = false;
            }
        }
        if (!ascii) {
            for (int i = 0; i < chars; i++) {
                char c = out[i];
                if (Character.isHighSurrogate(c)) {
                    if (i + 1 < chars && Character.isLowSurrogate(out[i + 1])) {
                        i++;
                    } else {
                        out[i] = '\uFFFD';
                        bad[0]++;
                    }
                } else if (Character.isLowSurrogate(c)) {
                    out[i] = '\uFFFD';
                    bad[0]++;
                }
            }
        }
        return new String(out);
    }

    /** Like {@link #decode}, but drops trailing NULs (Windows stores most strings NUL-terminated). */
    static String decodeTrimmed(byte[] buf, int offset, int chars, int[] bad) {
        int n = chars;
        while (n > 0 && buf[offset + 2 * (n - 1)] == 0 && buf[offset + 2 * (n - 1) + 1] == 0) {
            n--;
        }
        return decode(buf, offset, n, bad);
    }
}
