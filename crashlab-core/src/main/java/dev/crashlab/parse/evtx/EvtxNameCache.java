package dev.crashlab.parse.evtx;

import java.util.HashMap;
import java.util.Map;

/**
 * Caches a chunk's element and attribute names by chunk offset: a name is written once (inline, where
 * first used) and referenced by offset afterwards.
 *
 * <p>NOTE: names are read where the offsets point, not through the chunk header's common-string hash
 * table, which is only a lookup aid (a damaged table must not cost records).
 */
final class EvtxNameCache {

    /** Bytes of a name header: next-string offset (4), hash (2), character count (2). */
    static final int HEADER_SIZE = 8;

    private final ChunkBytes bytes;
    private final Map<Integer, String> names = new HashMap<>();
    private final int[] badText = new int[1];

    EvtxNameCache(ChunkBytes bytes) {
        this.bytes = bytes;
    }

    /** Returns the name stored at chunk offset {@code offset}. */
    String nameAt(int offset) throws EvtxFormatException {
        String cached = names.get(offset);
        if (cached != null) {
            return cached;
        }
        int limit = bytes.length();
        int chars = bytes.u16(offset + 6, limit, "name character count");
        bytes.need(offset + HEADER_SIZE, 2 * chars, limit, "name characters");
        badText[0] = 0;
        String name = Utf16Text.decode(bytes.array(), offset + HEADER_SIZE, chars, badText);
        if (badText[0] > 0 || !isXmlName(name)) {
            throw new EvtxFormatException(offset, "name at 0x" + Integer.toHexString(offset) + " is not an XML name");
        }
        names.put(offset, name);
        return name;
    }

    /** Tells whether a name was read at {@code offset} already. */
    boolean known(int offset) {
        return names.containsKey(offset);
    }

    /** Returns the bytes a name at {@code offset} occupies, its terminating NUL included. */
    int sizeAt(int offset) {
        return HEADER_SIZE + 2 * bytes.u16(offset + 6) + 2;
    }

    // Names become element and attribute names in our XML: anything else would make it malformed.
    // NOTE: ASCII only; Windows writes no other names, and XML parsers disagree on non-ASCII name characters.
    private static boolean isXmlName(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'
                    || (i > 0 && ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':'));
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
