package dev.crashlab.unpack;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.Zip64Mode;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;

/** Builds the archives the unpacker tests feed it, in memory, so that no binary fixture is committed. */
final class ArchiveFixtures {

    private ArchiveFixtures() {}

    /** Returns a map of entry names to contents, in the order given: name, content, name, content, .... */
    static Map<String, byte[]> entries(Object... nameThenContent) {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        for (int i = 0; i < nameThenContent.length; i += 2) {
            Object content = nameThenContent[i + 1];
            entries.put((String) nameThenContent[i], content instanceof byte[] b ? b : content.toString().getBytes(UTF_8));
        }
        return entries;
    }

    /** Returns a zip of the given entries, written as zip tools write files: sizes in the local headers. */
    static byte[] zip(Object... nameThenContent) {
        return zip(entries(nameThenContent));
    }

    /** Returns a zip of the given entries; a name ending in '/' becomes a directory entry. */
    static byte[] zip(Map<String, byte[]> entries) {
        // A seekable target lets the writer go back and fill in sizes, as it does for a file: no data descriptors.
        SeekableInMemoryByteChannel channel = new SeekableInMemoryByteChannel();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(channel)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                ZipArchiveEntry entry = new ZipArchiveEntry(e.getKey());
                zip.putArchiveEntry(entry);
                zip.write(e.getValue());
                zip.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Arrays.copyOf(channel.array(), (int) channel.size());
    }

    /** Returns a zip written as a stream: data descriptors after each entry and zip64 records throughout. */
    static byte[] zipStreamedZip64(Object... nameThenContent) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        // A plain OutputStream cannot seek back, so every entry gets a data descriptor.
        OutputStream unseekable = new OutputStream() {
            @Override
            public void write(int b) {
                bytes.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                bytes.write(b, off, len);
            }
        };
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(unseekable)) {
            zip.setUseZip64(Zip64Mode.Always);
            for (Map.Entry<String, byte[]> e : entries(nameThenContent).entrySet()) {
                zip.putArchiveEntry(new ZipArchiveEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Returns a zip holding one symbolic link entry. */
    static byte[] zipWithSymlink(String name, String target) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(bytes)) {
            ZipArchiveEntry entry = new ZipArchiveEntry(name);
            entry.setUnixMode(0120777);
            zip.putArchiveEntry(entry);
            zip.write(target.getBytes(UTF_8));
            zip.closeArchiveEntry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Returns a zip whose one entry inflates to {@code zeroMiB} MiB of zeros, at a ratio of about 1000:1.
     *
     * <p>The deflate stream is one compressed 16 MiB segment repeated: after a full flush a segment refers to
     * nothing before it, so repeating it stays valid, and no gigabyte is ever compressed or held in memory.
     */
    static void writeZipBomb(Path target, String entryName, int zeroMiB) throws IOException {
        int segmentMiB = 16;
        if (zeroMiB % segmentMiB != 0) {
            throw new IllegalArgumentException("zeroMiB must be a multiple of " + segmentMiB);
        }
        byte[] zeros = new byte[segmentMiB << 20];
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        deflater.setInput(zeros);
        ByteArrayOutputStream segment = new ByteArrayOutputStream();
        byte[] buffer = new byte[1 << 16];
        while (!deflater.needsInput()) {
            segment.write(buffer, 0, deflater.deflate(buffer, 0, buffer.length, Deflater.NO_FLUSH));
        }
        int n;
        do {
            n = deflater.deflate(buffer, 0, buffer.length, Deflater.FULL_FLUSH);
            segment.write(buffer, 0, n);
        } while (n == buffer.length);
        deflater.end();
        Deflater finisher = new Deflater(Deflater.BEST_COMPRESSION, true);
        finisher.finish();
        int finalLength = finisher.deflate(buffer);
        finisher.end();
        byte[] finalBlock = Arrays.copyOf(buffer, finalLength);

        int copies = zeroMiB / segmentMiB;
        CRC32 crc = new CRC32();
        for (int i = 0; i < copies; i++) {
            crc.update(zeros);
        }
        ZipArchiveEntry entry = new ZipArchiveEntry(entryName);
        entry.setMethod(ZipArchiveEntry.DEFLATED);
        entry.setSize((long) zeroMiB << 20);
        entry.setCompressedSize((long) segment.size() * copies + finalLength);
        entry.setCrc(crc.getValue());
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(target)) {
            byte[] segmentBytes = segment.toByteArray();
            java.io.InputStream raw = new java.io.SequenceInputStream(java.util.Collections.enumeration(
                    java.util.stream.Stream.concat(
                            java.util.stream.IntStream.range(0, copies).mapToObj(i -> new java.io.ByteArrayInputStream(segmentBytes)),
                            java.util.stream.Stream.of(new java.io.ByteArrayInputStream(finalBlock))).toList()));
            zip.addRawArchiveEntry(entry, raw);
        }
    }

    /** Returns a ustar tar of the given entries; a name ending in '/' becomes a directory entry. */
    static byte[] tar(Object... nameThenContent) {
        return tar(entries(nameThenContent));
    }

    /** Returns a tar of the given entries, with PAX headers for long or non-ASCII names. */
    static byte[] tar(Map<String, byte[]> entries) {
        return tarOf(entries.entrySet().stream().map(e -> {
            TarArchiveEntry entry = new TarArchiveEntry(e.getKey(), true);
            entry.setSize(e.getKey().endsWith("/") ? 0 : e.getValue().length);
            return new TarItem(entry, e.getKey().endsWith("/") ? new byte[0] : e.getValue());
        }).toList());
    }

    /** One tar entry with its data. */
    record TarItem(TarArchiveEntry entry, byte[] data) {
        static TarItem file(String name, String content) {
            TarArchiveEntry entry = new TarArchiveEntry(name, true);
            byte[] data = content.getBytes(UTF_8);
            entry.setSize(data.length);
            return new TarItem(entry, data);
        }

        static TarItem special(String name, byte linkFlag, String linkName) {
            TarArchiveEntry entry = new TarArchiveEntry(name, linkFlag, true);
            if (linkName != null) {
                entry.setLinkName(linkName);
            }
            return new TarItem(entry, new byte[0]);
        }
    }

    /** Returns a tar of the given items. */
    static byte[] tarOf(List<TarItem> items) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes, "UTF-8")) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setAddPaxHeadersForNonAsciiNames(true);
            for (TarItem item : items) {
                tar.putArchiveEntry(item.entry());
                tar.write(item.data());
                tar.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Returns the bytes gzip-compressed, with no name in the header. */
    static byte[] gzip(byte[] data) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Returns the bytes gzip-compressed with {@code originalName} in the header, as {@code gzip -N} does. */
    static byte[] gzipNamed(byte[] data, String originalName) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            org.apache.commons.compress.compressors.gzip.GzipParameters parameters =
                    new org.apache.commons.compress.compressors.gzip.GzipParameters();
            parameters.setFileName(originalName);
            try (OutputStream gzip = new org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream(bytes, parameters)) {
                gzip.write(data);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Returns a gzip-compressed tar of the given entries. */
    static byte[] tgz(Object... nameThenContent) {
        return gzip(tar(nameThenContent));
    }

    /** Writes {@code bytes} to {@code dir/name} and returns the file. */
    static Path write(Path dir, String name, byte[] bytes) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, bytes);
        return file;
    }
}
