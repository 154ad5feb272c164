package dev.crashlab.sniff;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Re-encodes a text the ways Windows and editors write it, so tests can check the type survives. */
public final class Encodings {

    private Encodings() {}

    /** Returns {@code text} as UTF-16LE/BE with and without BOM, UTF-8 with BOM, and with CRLF line ends. */
    static Map<String, byte[]> variants(String text) {
        Map<String, byte[]> out = utf16(text);
        out.put("utf-8+bom", concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, text.getBytes(StandardCharsets.UTF_8)));
        out.put("crlf", text.replace("\r\n", "\n").replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8));
        return out;
    }

    /** Returns {@code text} as UTF-16LE/BE with and without BOM (utf-16le+bom is what PowerShell 5.1's {@code >} writes). */
    public static Map<String, byte[]> utf16(String text) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        out.put("utf-16le+bom", utf16leWithBom(text));
        out.put("utf-16le", text.getBytes(StandardCharsets.UTF_16LE));
        out.put("utf-16be+bom", concat(new byte[] {(byte) 0xFE, (byte) 0xFF}, text.getBytes(StandardCharsets.UTF_16BE)));
        out.put("utf-16be", text.getBytes(StandardCharsets.UTF_16BE));
        return out;
    }

    /** Returns {@code text} as UTF-16LE after its byte-order mark. */
    public static byte[] utf16leWithBom(String text) {
        return concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, text.getBytes(StandardCharsets.UTF_16LE));
    }

    /** Returns the first {@link ArtifactSniffer#HEAD_BYTES} bytes, as the upload path would read them. */
    static byte[] head(byte[] bytes) {
        return Arrays.copyOf(bytes, Math.min(bytes.length, ArtifactSniffer.HEAD_BYTES));
    }

    public static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
