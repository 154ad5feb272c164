package dev.crashlab.parse.evtx;

import static dev.crashlab.parse.evtx.BinXmlValueType.*;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders substitution values of every BinXML value type as text, the way Windows writes them in event XML
 * (decimal integers, {@code 0x}-prefixed hex types, upper-case GUIDs in braces, SIDs as {@code S-1-...},
 * ISO-8601 UTC times, binary as upper-case hex).
 */
final class EvtxValues {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** Joins the elements of an array value. */
    static final String ARRAY_SEPARATOR = ", ";

    private EvtxValues() {}

    /**
     * Renders the value of {@code type} in {@code size} bytes at {@code offset}; returns null when the
     * size does not fit the type (an incomplete SID, a 3-byte integer), so the caller can report it.
     */
    static String render(byte[] buf, int type, int offset, int size, int[] badText) {
        if ((type & ARRAY) != 0) {
            List<String> items = items(buf, type, offset, size, badText);
            return items == null ? null : String.join(ARRAY_SEPARATOR, items);
        }
        return switch (type) {
            case NULL -> "";
            case STRING -> (size & 1) != 0 ? null : Utf16Text.decodeTrimmed(buf, offset, size / 2, badText);
            case ANSI_STRING -> ansi(buf, offset, size);
            case SIZE_T -> size == 4 ? "0x" + Long.toHexString(u32(buf, offset))
                    : size == 8 ? "0x" + Long.toHexString(i64(buf, offset)) : null;
            case BINARY, EVT_HANDLE, EVT_XML -> hex(buf, offset, size);
            case SID -> sid(buf, offset, size);
            default -> {
                int fixed = fixedSize(type);
                yield fixed == 0 || size != fixed ? null : scalar(buf, type, offset);
            }
        };
    }

    private static String scalar(byte[] buf, int type, int o) {
        return switch (type) {
            case INT8 -> Integer.toString(buf[o]);
            case UINT8 -> Integer.toString(buf[o] & 0xff);
            case INT16 -> Integer.toString((short) u16(buf, o));
            case UINT16 -> Integer.toString(u16(buf, o));
            case INT32 -> Integer.toString((int) u32(buf, o));
            case UINT32 -> Long.toString(u32(buf, o));
            case INT64 -> Long.toString(i64(buf, o));
            case UINT64 -> Long.toUnsignedString(i64(buf, o));
            case REAL32 -> Float.toString(Float.intBitsToFloat((int) u32(buf, o)));
            case REAL64 -> Double.toString(Double.longBitsToDouble(i64(buf, o)));
            case BOOL -> u32(buf, o) != 0 ? "true" : "false";
            case GUID -> guid(buf, o);
            case FILETIME -> WindowsTime.fileTime(i64(buf, o));
            case SYSTEMTIME -> WindowsTime.systemTime(u16(buf, o), u16(buf, o + 2), u16(buf, o + 6), u16(buf, o + 8),
                    u16(buf, o + 10), u16(buf, o + 12), u16(buf, o + 14));
            case HEX_INT32 -> "0x" + Long.toHexString(u32(buf, o));
            case HEX_INT64 -> "0x" + Long.toHexString(i64(buf, o));
            default -> hex(buf, o, fixedSize(type));
        };
    }

    /** Returns the elements of an array value, or null when its size does not fit the element type. */
    static List<String> items(byte[] buf, int type, int offset, int size, int[] badText) {
        int base = type & ~ARRAY;
        List<String> out = new ArrayList<>();
        if (base == STRING) {
            // NUL-terminated UTF-16 strings one after another
            int chars = size / 2;
            int start = 0;
            for (int i = 0; i < chars; i++) {
                if (buf[offset + 2 * i] == 0 && buf[offset + 2 * i + 1] == 0) {
                    out.add(Utf16Text.decode(buf, offset + 2 * start, i - start, badText));
                    start = i + 1;
                }
            }
            if (start < chars) {
                out.add(Utf16Text.decode(buf, offset + 2 * start, chars - start, badText));
            }
            return out;
        }
        if (base == ANSI_STRING) {
            int start = 0;
            for (int i = 0; i < size; i++) {
                if (buf[offset + i] == 0) {
                    out.add(ansi(buf, offset + start, i - start));
                    start = i + 1;
                }
            }
            if (start < size) {
                out.add(ansi(buf, offset + start, size - start));
            }
            return out;
        }
        int fixed = base == SIZE_T ? 8 : fixedSize(base);
        if (fixed == 0 || size % fixed != 0) {
            return null;
        }
        for (int o = offset; o < offset + size; o += fixed) {
            out.add(base == SIZE_T ? "0x" + Long.toHexString(i64(buf, o)) : scalar(buf, base, o));
        }
        return out;
    }

    private static String ansi(byte[] buf, int offset, int size) {
        return new ChunkBytes(buf).ansi(offset, size);
    }

    /** Renders a SID ({@code S-revision-authority-sub...}), or null when its bytes are incomplete. */
    static String sid(byte[] buf, int o, int size) {
        if (size < 8) {
            return null;
        }
        int revision = buf[o] & 0xff;
        int subCount = buf[o + 1] & 0xff;
        if (size < 8 + 4 * subCount) {
            return null;
        }
        long authority = 0;
        for (int i = 2; i < 8; i++) {
            authority = authority << 8 | (buf[o + i] & 0xff);
        }
        StringBuilder sb = new StringBuilder(48).append("S-").append(revision).append('-');
        sb.append(authority < (1L << 32) ? Long.toString(authority) : "0x" + Long.toHexString(authority).toUpperCase(java.util.Locale.ROOT));
        for (int i = 0; i < subCount; i++) {
            sb.append('-').append(u32(buf, o + 8 + 4 * i));
        }
        return sb.toString();
    }

    /** Renders a GUID as Windows does: {@code {01234567-89AB-CDEF-0123-456789ABCDEF}}. */
    static String guid(byte[] buf, int o) {
        char[] c = new char[38];
        int p = 0;
        c[p++] = '{';
        p = hexLe(buf, o, 4, c, p);
        c[p++] = '-';
        p = hexLe(buf, o + 4, 2, c, p);
        c[p++] = '-';
        p = hexLe(buf, o + 6, 2, c, p);
        c[p++] = '-';
        for (int i = 8; i < 16; i++) {
            if (i == 10) {
                c[p++] = '-';
            }
            c[p++] = HEX[(buf[o + i] >> 4) & 0xf];
            c[p++] = HEX[buf[o + i] & 0xf];
        }
        c[p] = '}';
        return new String(c);
    }

    private static int hexLe(byte[] buf, int o, int n, char[] c, int p) {
        for (int i = n - 1; i >= 0; i--) {
            c[p++] = HEX[(buf[o + i] >> 4) & 0xf];
            c[p++] = HEX[buf[o + i] & 0xf];
        }
        return p;
    }

    /** Renders bytes as upper-case hex without separators. */
    static String hex(byte[] buf, int o, int size) {
        char[] c = new char[2 * size];
        for (int i = 0; i < size; i++) {
            c[2 * i] = HEX[(buf[o + i] >> 4) & 0xf];
            c[2 * i + 1] = HEX[buf[o + i] & 0xf];
        }
        return new String(c);
    }

    private static int u16(byte[] b, int o) {
        return (b[o] & 0xff) | (b[o + 1] & 0xff) << 8;
    }

    private static long u32(byte[] b, int o) {
        return ((b[o] & 0xff) | (b[o + 1] & 0xff) << 8 | (b[o + 2] & 0xff) << 16 | (long) (b[o + 3] & 0xff) << 24);
    }

    private static long i64(byte[] b, int o) {
        return u32(b, o) | u32(b, o + 4) << 32;
    }
}
