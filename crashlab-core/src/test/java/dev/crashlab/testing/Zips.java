package dev.crashlab.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/** Builds small zip archives in memory for tests (no binary fixtures are committed). */
public final class Zips {

    private final Map<String, byte[]> entries = new LinkedHashMap<>();
    private final Map<String, String> links = new LinkedHashMap<>();

    /** Starts an empty archive. */
    public static Zips zip() {
        return new Zips();
    }

    /** Adds a text entry. */
    public Zips text(String name, String content) {
        entries.put(name, content.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Adds a binary entry. */
    public Zips bytes(String name, byte[] content) {
        entries.put(name, content);
        return this;
    }

    /** Adds a Unix symlink entry pointing at {@code target}. */
    public Zips symlink(String name, String target) {
        links.put(name, target);
        return this;
    }

    /** Returns the archive's bytes. */
    public byte[] build() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(buf)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                ZipArchiveEntry entry = new ZipArchiveEntry(e.getKey());
                zip.putArchiveEntry(entry);
                zip.write(e.getValue());
                zip.closeArchiveEntry();
            }
            for (Map.Entry<String, String> l : links.entrySet()) {
                ZipArchiveEntry entry = new ZipArchiveEntry(l.getKey());
                entry.setUnixMode(0120777); // S_IFLNK | 0777
                zip.putArchiveEntry(entry);
                zip.write(l.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toByteArray();
    }

    /** Returns a zip holding one entry of {@code size} zero bytes: a classic high-ratio bomb. */
    public static byte[] zeros(String name, long size) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(buf)) {
            zip.setLevel(9);
            zip.putNextEntry(new ZipEntry(name));
            byte[] block = new byte[1 << 16];
            for (long left = size; left > 0; left -= block.length) {
                zip.write(block, 0, (int) Math.min(block.length, left));
            }
            zip.closeEntry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toByteArray();
    }
}
