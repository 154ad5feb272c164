package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarUtils;

/**
 * Expands a tar stream (a plain tar file, or the content of a gzip) for {@link BundleUnpacker}: each header is
 * checked as it is read (checksum, truncation, long-name and PAX header sizes, sparse files), links and special
 * files are refused, and regular entries are staged and placed through the coordinator.
 */
final class TarReader {

    /** Caps GNU long-name and PAX headers, which commons-compress reads whole into memory. */
    private static final long MAX_TAR_METADATA_BYTES = 1L << 20;

    private TarReader() {}

    /** Expands the tar stream {@code in} and returns the name of its last entry, or null if it had none. */
    static String expand(BundleUnpacker u, InputStream in, LongSupplier compressedRead, BundleUnpacker.Container c)
            throws BundleRejectedException, IOException {
        GuardedTarInputStream tar = new GuardedTarInputStream(in);
        String last = null;
        while (true) {
            TarArchiveEntry entry;
            try {
                entry = tar.getNextEntry();
            } catch (IOException | RuntimeException e) {
                throw u.readFailure(e, c.label(), UnpackMessages.after(last));
            }
            if (entry == null) {
                return last;
            }
            u.countEntry(c);
            String raw = entry.getName();
            boolean directory = entry.isDirectory();
            String path = EntryNames.normalizeEntryPath(raw, c.label(), directory);
            if (entry.isSymbolicLink()) {
                throw UnpackMessages.link(raw, c.label(), "a symbolic link", entry.getLinkName());
            }
            if (entry.isLink()) {
                throw UnpackMessages.link(raw, c.label(), "a hard link", entry.getLinkName());
            }
            if (entry.isCharacterDevice()) {
                throw UnpackMessages.special(raw, c.label(), "a character device");
            }
            if (entry.isBlockDevice()) {
                throw UnpackMessages.special(raw, c.label(), "a block device");
            }
            if (entry.isFIFO()) {
                throw UnpackMessages.special(raw, c.label(), "a FIFO (named pipe)");
            }
            if (entry.isSparse()) {
                throw UnpackMessages.special(raw, c.label(), "a sparse file");
            }
            byte type = entry.getLinkFlag();
            if (directory || type == 'V') { // 'V': a GNU volume label, metadata only
                last = raw;
                continue;
            }
            if (type != '0' && type != 0 && type != '7') { // '7': contiguous file, a regular file elsewhere
                throw UnpackMessages.special(raw, c.label(), "an entry of unsupported tar type '" + printable(type) + "'");
            }
            long before = compressedRead.getAsLong();
            BundleUnpacker.Staged staged = u.stage(tar, () -> compressedRead.getAsLong() - before, c.label(), raw, -1, -1);
            u.place(staged, c.prefix() + path, c.label() + "/" + path, false, c.depth() + 1);
            last = raw;
        }
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format(Locale.ROOT, "\\x%02x", b & 0xff);
    }

    /**
     * Adds the checks commons-compress leaves out: header checksums, truncation at a record boundary, and caps on
     * the metadata it reads into memory; it also refuses sparse files, whose maps are read without a bound.
     */
    private static final class GuardedTarInputStream extends TarArchiveInputStream {
        private static final byte[] SPARSE_KEY = "GNU.sparse.".getBytes(StandardCharsets.US_ASCII);
        private boolean endSeen;
        private int sparseKeyMatched;

        GuardedTarInputStream(InputStream in) {
            super(in, StandardCharsets.UTF_8.name());
        }

        /** Checks each header record as commons-compress reads it; null means the data ran out mid-archive. */
        @Override
        protected boolean isEOFRecord(byte[] record) {
            if (endSeen) {
                return super.isEOFRecord(record); // the optional second end-of-archive record
            }
            if (record == null) {
                throw guard(Kind.CORRUPT, "unexpected end of archive");
            }
            if (ArchiveFormat.isAllZero(record)) {
                endSeen = true;
                return true;
            }
            if (!ArchiveFormat.tarChecksumMatches(record)) {
                throw guard(Kind.CORRUPT, "bad header checksum");
            }
            byte type = record[156];
            if (type == 'S') {
                throw guard(Kind.SPECIAL_FILE, "a sparse file");
            }
            if (type == 'L' || type == 'K' || type == 'x' || type == 'X' || type == 'g') {
                long size;
                try {
                    size = TarUtils.parseOctalOrBinary(record, 124, 12);
                } catch (IllegalArgumentException e) {
                    throw guard(Kind.CORRUPT, "invalid header");
                }
                if (size < 0 || size > MAX_TAR_METADATA_BYTES) {
                    throw guard(Kind.CORRUPT, "an oversized long-name or PAX header (" + UnpackMessages.humanBytes(Math.max(size, 0)) + ")");
                }
            }
            return false;
        }

        /** Watches the PAX headers commons-compress reads through here for sparse-file keys. */
        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            TarArchiveEntry current = getCurrentEntry();
            if (n > 0 && current != null && (current.isPaxHeader() || current.isGlobalPaxHeader())) {
                for (int i = offset; i < offset + n; i++) {
                    // 'G' occurs once in the key, so falling back to 0 or 1 on a mismatch finds every match.
                    sparseKeyMatched = buffer[i] == SPARSE_KEY[sparseKeyMatched] ? sparseKeyMatched + 1
                            : buffer[i] == SPARSE_KEY[0] ? 1 : 0;
                    if (sparseKeyMatched == SPARSE_KEY.length) {
                        throw new UnpackStreams.GuardException(Kind.SPECIAL_FILE, "a sparse file");
                    }
                }
            }
            return n;
        }

        private static UncheckedIOException guard(Kind kind, String reason) {
            return new UncheckedIOException(new UnpackStreams.GuardException(kind, reason));
        }
    }
}
