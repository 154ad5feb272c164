package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.apache.commons.compress.utils.InputStreamStatistics;

/**
 * Expands a zip archive for {@link BundleUnpacker}: walks the central directory itself first (entry count and size,
 * before commons-compress holds it in memory), then stages each entry in physical order, checking its CRC, size,
 * compression method, encryption and unix type.
 *
 * <p>NOTE: the entries are staged through the coordinator ({@code stage}, {@code place}), which owns the limits,
 * the staged files and nested archives; this class only knows the zip format.
 */
final class ZipReader {

    /** Caps the zip central directory, which commons-compress parses whole into memory before any limit applies. */
    private static final long MAX_CENTRAL_DIRECTORY_BYTES = 32L << 20;
    /** Zip methods whose decoders ship inside commons-compress; the others need optional jars we do not have. */
    private static final Set<Integer> READABLE_ZIP_METHODS = Set.of(ZipMethod.STORED.getCode(),
            ZipMethod.DEFLATED.getCode(), ZipMethod.ENHANCED_DEFLATED.getCode(), ZipMethod.BZIP2.getCode());
    private static final int UNIX_TYPE_MASK = 0170000;
    private static final int UNIX_REGULAR = 0100000;
    private static final int UNIX_DIRECTORY = 0040000;
    private static final int UNIX_SYMLINK = 0120000;

    private ZipReader() {}

    static void expand(BundleUnpacker u, Path file, BundleUnpacker.Container c) throws BundleRejectedException, IOException {
        checkCentralDirectory(u, file, c);
        ZipFile zip;
        try {
            zip = ZipFile.builder().setPath(file).get();
        } catch (IOException | RuntimeException e) {
            throw UnpackMessages.corrupt(c.label(), describeZipDamage(file), e);
        }
        try {
            List<ZipArchiveEntry> entries;
            try {
                entries = Collections.list(zip.getEntriesInPhysicalOrder());
            } catch (RuntimeException e) {
                throw UnpackMessages.corrupt(c.label(), "its central directory is damaged", e);
            }
            for (ZipArchiveEntry entry : entries) {
                expandEntry(u, zip, entry, c);
            }
        } finally {
            ZipFile.closeQuietly(zip);
        }
    }

    private static void expandEntry(BundleUnpacker u, ZipFile zip, ZipArchiveEntry entry, BundleUnpacker.Container c)
            throws BundleRejectedException, IOException {
        u.countEntry(c);
        String raw = entry.getName();
        int unixType = entry.getPlatform() == ZipArchiveEntry.PLATFORM_UNIX ? entry.getUnixMode() & UNIX_TYPE_MASK : 0;
        boolean directory = entry.isDirectory() || raw.endsWith("\\") || unixType == UNIX_DIRECTORY;
        String path = EntryNames.normalizeEntryPath(raw, c.label(), directory);
        if (entry.isUnixSymlink() || unixType == UNIX_SYMLINK) {
            // The link target is the entry's data; it is not read, as it could be as large as any entry.
            throw UnpackMessages.link(raw, c.label(), "a symbolic link", null);
        }
        if (unixType != 0 && unixType != UNIX_DIRECTORY && unixType != UNIX_REGULAR) {
            throw UnpackMessages.special(raw, c.label(), switch (unixType) {
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0010000 -> "a FIFO (named pipe)";
                case 0140000 -> "a socket";
                default -> "an entry of unknown unix type " + Integer.toOctalString(unixType);
            });
        }
        if (directory) {
            return;
        }
        if (entry.getGeneralPurposeBit().usesEncryption()) {
            throw new BundleRejectedException(Kind.CORRUPT, "archive entry " + UnpackMessages.quote(raw) + " in " + UnpackMessages.quote(c.label())
                    + " is encrypted, and CrashLab cannot read password-protected archives; upload it without a password");
        }
        if (!READABLE_ZIP_METHODS.contains(entry.getMethod())) {
            ZipMethod method = ZipMethod.getMethodByCode(entry.getMethod());
            throw new BundleRejectedException(Kind.CORRUPT, "archive entry " + UnpackMessages.quote(raw) + " in " + UnpackMessages.quote(c.label())
                    + " uses compression method " + entry.getMethod() + (method == null ? "" : " (" + method + ")")
                    + ", which CrashLab cannot read; re-create the archive with Deflate, the default of zip tools");
        }
        InputStream in;
        try {
            in = zip.getInputStream(entry);
        } catch (IOException | RuntimeException e) {
            throw u.readFailure(e, c.label(), "in entry " + UnpackMessages.quote(raw));
        }
        BundleUnpacker.Staged staged;
        try {
            // Every decoder on READABLE_ZIP_METHODS reports its compressed count; were one not to, treating its
            // count as 0 makes the ratio check refuse anything past the grace rather than let a bomb through.
            LongSupplier compressed = in instanceof InputStreamStatistics stats ? stats::getCompressedCount : () -> 0;
            staged = u.stage(in, compressed, c.label(), raw, entry.getCrc(), entry.getSize());
        } finally {
            UnpackStreams.closeQuietly(in);
        }
        u.place(staged, c.prefix() + path, c.label() + "/" + path, false, c.depth() + 1);
    }

    /**
     * Walks the central directory before commons-compress parses it, refusing one with too many entries or an
     * implausible size: {@link ZipFile} holds every entry in memory before any other limit could apply.
     */
    private static void checkCentralDirectory(BundleUnpacker u, Path file, BundleUnpacker.Container c) throws BundleRejectedException, IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file)) {
            long size = ch.size();
            int eocdLength = 22;
            if (size < eocdLength) {
                return; // ZipFile reports it as not a zip archive
            }
            int tailLength = (int) Math.min(size, eocdLength + 0xFFFF);
            ByteBuffer tail = readAt(ch, size - tailLength, tailLength);
            int eocd = -1;
            for (int i = tailLength - eocdLength; i >= 0; i--) {
                if (tail.getInt(i) == 0x06054b50) {
                    eocd = i;
                    break;
                }
            }
            if (eocd < 0) {
                return;
            }
            long start = Integer.toUnsignedLong(tail.getInt(eocd + 16));
            long eocdPosition = size - tailLength + eocd;
            if (eocdPosition >= 20) {
                ByteBuffer locator = readAt(ch, eocdPosition - 20, 20);
                long zip64Record = locator.getLong(8);
                if (locator.getInt(0) == 0x07064b50 && zip64Record >= 0 && zip64Record <= size - 56) {
                    ByteBuffer record = readAt(ch, zip64Record, 56);
                    if (record.getInt(0) == 0x06064b50) {
                        start = record.getLong(48);
                    }
                }
            }
            if (start < 0 || start >= size) {
                return;
            }
            ch.position(start);
            InputStream in = new BufferedInputStream(Channels.newInputStream(ch), UnpackStreams.COPY_BUFFER);
            ByteBuffer header = ByteBuffer.allocate(46).order(ByteOrder.LITTLE_ENDIAN);
            long records = 0;
            long bytes = 0;
            long allowed = u.entryLimit() - u.entriesSeen();
            while (in.readNBytes(header.array(), 0, 46) == 46 && header.getInt(0) == 0x02014b50) {
                long variable = Short.toUnsignedLong(header.getShort(28)) + Short.toUnsignedLong(header.getShort(30))
                        + Short.toUnsignedLong(header.getShort(32));
                records++;
                bytes += 46 + variable;
                if (records > allowed) {
                    throw u.tooManyEntries(c);
                }
                if (bytes > MAX_CENTRAL_DIRECTORY_BYTES) {
                    throw UnpackMessages.corrupt(c.label(), "its central directory is implausibly large (over "
                            + UnpackMessages.humanBytes(MAX_CENTRAL_DIRECTORY_BYTES) + " for " + records + " entries)", null);
                }
                try {
                    in.skipNBytes(variable);
                } catch (EOFException e) {
                    break; // ZipFile reports the truncated directory
                }
            }
        }
    }

    /**
     * Walks the local headers of a zip whose central directory could not be read, to say where it was cut off;
     * only headers are read, so this costs no decompression however hostile the file.
     */
    private static String describeZipDamage(Path file) throws IOException {
        String unknown = "its central directory is missing or damaged; the file may have been cut off";
        try (SeekableByteChannel ch = Files.newByteChannel(file)) {
            long size = ch.size();
            long position = 0;
            String last = null;
            while (true) {
                if (position + 30 > size) {
                    return "unexpected end of archive " + UnpackMessages.after(last);
                }
                ByteBuffer header = readAt(ch, position, 30);
                if (header.getInt(0) != 0x04034b50) {
                    return header.getInt(0) == 0x02014b50 && last != null
                            ? "its central directory, after entry " + UnpackMessages.quote(last) + ", is damaged or cut off" : unknown;
                }
                int nameLength = Short.toUnsignedInt(header.getShort(26));
                int extraLength = Short.toUnsignedInt(header.getShort(28));
                long compressed = Integer.toUnsignedLong(header.getInt(18));
                boolean sizeFollowsData = (header.getShort(6) & 0x08) != 0;
                if (position + 30 + nameLength > size) {
                    return "unexpected end of archive " + UnpackMessages.after(last);
                }
                String name = new String(readAt(ch, position + 30, nameLength).array(), StandardCharsets.UTF_8);
                if (sizeFollowsData || compressed == 0xFFFFFFFFL) {
                    return unknown; // the size is in a data descriptor or a zip64 field: no cheap way on
                }
                long end = position + 30 + nameLength + extraLength + compressed;
                if (end > size) {
                    return "unexpected end of archive in entry " + UnpackMessages.quote(name);
                }
                position = end;
                last = name;
            }
        }
    }

    private static ByteBuffer readAt(SeekableByteChannel ch, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        ch.position(position);
        while (buffer.hasRemaining()) {
            if (ch.read(buffer) < 0) {
                throw new EOFException();
            }
        }
        return buffer.clear();
    }
}
