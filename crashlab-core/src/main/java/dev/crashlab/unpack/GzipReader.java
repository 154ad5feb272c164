package dev.crashlab.unpack;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Expands a gzip file for {@link BundleUnpacker}: a gzip-compressed tar goes to {@link TarReader} as a stream; any
 * other content is staged as one file named after the upload without {@code .gz} (or the header's original name),
 * and placed where the gzip was (so a gzipped archive is expanded one level deeper).
 *
 * <p>NOTE: the decompressed stream is capped at the bundle's expanded-size limit itself, so tar headers and skipped
 * entries, which reach no staged file, are bounded too.
 */
final class GzipReader {

    private static final int MAX_GZIP_NAME_BYTES = 1024;

    private GzipReader() {}

    static void expand(BundleUnpacker u, Path file, BundleUnpacker.Container c) throws BundleRejectedException, IOException {
        String originalName = gzipOriginalName(file);
        // Counted after the buffer, so that the count is what the decompressor consumed, not what was read ahead.
        try (UnpackStreams.CountingInputStream raw = new UnpackStreams.CountingInputStream(
                new BufferedInputStream(Files.newInputStream(file), UnpackStreams.COPY_BUFFER))) {
            // The JDK's reader, not commons-compress: the latter buffers the header's file name and comment
            // whole, so a header with a gigabyte-long name exhausts the heap. The JDK skips them.
            InputStream gzip;
            try {
                gzip = new GZIPInputStream(raw, 8192);
            } catch (IOException | RuntimeException e) {
                throw u.readFailure(e, c.label(), "in its gzip header");
            }
            // Bounds the decompressed stream itself: tar headers and skipped entries reach no staged file.
            BufferedInputStream data = new BufferedInputStream(new UnpackStreams.CappedInputStream(gzip, u.limits().maxExpandedBytes()),
                    UnpackStreams.COPY_BUFFER);
            byte[] head;
            try {
                data.mark(ArchiveFormat.TAR_BLOCK);
                head = data.readNBytes(ArchiveFormat.TAR_BLOCK);
                data.reset();
            } catch (IOException | RuntimeException e) {
                throw u.readFailure(e, c.label(), "");
            }
            if (ArchiveFormat.looksLikeTar(head)) {
                String last = TarReader.expand(u, data, raw::count, c);
                try {
                    // Reads to the end so that the gzip trailer's CRC and length are checked.
                    data.transferTo(OutputStream.nullOutputStream());
                } catch (IOException | RuntimeException e) {
                    throw u.readFailure(e, c.label(), UnpackMessages.after(last));
                }
                return;
            }
            String dir = c.path().substring(0, c.path().lastIndexOf('/') + 1);
            String labelDir = c.label().substring(0, c.label().lastIndexOf('/') + 1);
            String name = gunzippedName(c.path().substring(dir.length()), originalName);
            BundleUnpacker.Staged staged = u.stage(data, raw::count, c.label(), null, -1, -1);
            // In place: x/foo.log.gz becomes x/foo.log; if that is an archive, it is one level deeper.
            u.place(staged, dir + name, labelDir + name, c.atRoot(), c.depth() + 1);
        }
    }

    /** Returns the name in a gzip header, reduced to a usable last segment, or null. */
    private static String gzipOriginalName(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            byte[] header = in.readNBytes(10);
            if (header.length < 10 || (header[3] & 0x08) == 0) {
                return null;
            }
            if ((header[3] & 0x04) != 0) {
                byte[] extraLength = in.readNBytes(2);
                int length = extraLength.length < 2 ? 0 : (extraLength[0] & 0xff) | (extraLength[1] & 0xff) << 8;
                if (extraLength.length < 2 || in.readNBytes(length).length < length) {
                    return null;
                }
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int b; (b = in.read()) != 0; ) {
                if (b < 0 || bytes.size() >= MAX_GZIP_NAME_BYTES) {
                    return null;
                }
                bytes.write(b);
            }
            String name;
            try {
                name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
            } catch (CharacterCodingException e) {
                name = bytes.toString(StandardCharsets.ISO_8859_1); // what RFC 1952 prescribes, and older tools write
            }
            name = name.substring(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
            return EntryNames.segmentProblem(name) == null ? name : null;
        }
    }

    private static String gunzippedName(String name, String originalName) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".gz") && name.length() > 3) {
            return name.substring(0, name.length() - 3);
        }
        if (lower.endsWith(".tgz") && name.length() > 4) {
            return name.substring(0, name.length() - 4) + ".tar";
        }
        return originalName != null ? originalName : name + ".out";
    }
}
