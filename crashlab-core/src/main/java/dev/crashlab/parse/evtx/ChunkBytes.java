package dev.crashlab.parse.evtx;

import java.nio.charset.StandardCharsets;

/**
 * Reads little-endian fields out of one chunk's bytes, each read naming the field it reads, so a short
 * read says what was being read, where, and how much was missing.
 *
 * <p>NOTE: offsets are chunk-relative (BinXML name and template offsets are too); {@code limit} bounds
 * every read, so a structure cannot read past the record or value that holds it.
 */
final class ChunkBytes {

    private final byte[] buf;

    ChunkBytes(byte[] buf) {
        this.buf = buf;
    }

    byte[] array() {
        return buf;
    }

    int length() {
        return buf.length;
    }

    void need(int offset, int count, int limit, String field) throws EvtxFormatException {
        if (offset < 0 || count < 0 || (long) offset + count > limit) {
            throw new EvtxFormatException(offset, field + " at 0x" + Integer.toHexString(Math.max(offset, 0))
                    + ": need " + count + " bytes, have " + Math.max(0, limit - offset));
        }
    }

    int u8(int offset, int limit, String field) throws EvtxFormatException {
        need(offset, 1, limit, field);
        return buf[offset] & 0xff;
    }

    int u8(int offset) {
        return buf[offset] & 0xff;
    }

    int u16(int offset, int limit, String field) throws EvtxFormatException {
        need(offset, 2, limit, field);
        return u16(offset);
    }

    int u16(int offset) {
        return (buf[offset] & 0xff) | (buf[offset + 1] & 0xff) << 8;
    }

    long u32(int offset, int limit, String field) throws EvtxFormatException {
        need(offset, 4, limit, field);
        return u32(offset);
    }

    long u32(int offset) {
        return i32(offset) & 0xffffffffL;
    }

    int i32(int offset) {
        return (buf[offset] & 0xff) | (buf[offset + 1] & 0xff) << 8 | (buf[offset + 2] & 0xff) << 16
                | (buf[offset + 3] & 0xff) << 24;
    }

    long i64(int offset, int limit, String field) throws EvtxFormatException {
        need(offset, 8, limit, field);
        return i64(offset);
    }

    long i64(int offset) {
        return u32(offset) | u32(offset + 4) << 32;
    }

    /** Reads an offset field (a u32 that must land inside the chunk). */
    int offset32(int offset, int limit, String field) throws EvtxFormatException {
        long v = u32(offset, limit, field);
        if (v >= buf.length) {
            throw new EvtxFormatException(offset, field + " at 0x" + Integer.toHexString(offset)
                    + ": points outside the chunk (0x" + Long.toHexString(v) + ")");
        }
        return (int) v;
    }

    /** Tells whether the bytes at {@code offset} are {@code magic}. */
    boolean startsWith(int offset, byte[] magic) {
        if (offset < 0 || offset + magic.length > buf.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if (buf[offset + i] != magic[i]) {
                return false;
            }
        }
        return true;
    }

    /** Decodes single-byte text (ANSI strings) as Windows-1252, cut at the first NUL. */
    String ansi(int offset, int count) {
        int end = offset;
        while (end < offset + count && buf[end] != 0) {
            end++;
        }
        return new String(buf, offset, end - offset, WINDOWS_1252);
    }

    private static final java.nio.charset.Charset WINDOWS_1252 = windows1252();

    private static java.nio.charset.Charset windows1252() {
        try {
            return java.nio.charset.Charset.forName("windows-1252");
        } catch (RuntimeException e) {
            return StandardCharsets.ISO_8859_1;
        }
    }
}
