package dev.crashlab.bundle;

import dev.crashlab.bundle.BundleRejectedException.Kind;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarUtils;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.apache.commons.compress.utils.InputStreamStatistics;

/**
 * Unpacks the files of one uploaded bundle into staged files, refusing hostile input before it can do harm.
 *
 * <p>Each {@link #add add} call takes one uploaded file. Its kind is decided by its first bytes, not its name:
 * a zip, tar, gzip-compressed tar or gzip file is expanded (archives nested inside are expanded in place, up to
 * {@link UnpackLimits#maxDepth()} levels); anything else is staged as one file. A name ending in {@code .zip},
 * {@code .tar}, {@code .tgz}, {@code .tar.gz} or {@code .gz} on content that is no archive at all is refused;
 * an archive of another kind than its name says is expanded as what it is.
 *
 * <p>What is refused, and why it is safe:
 * <ul>
 *   <li>entry names are normalized, never rewritten: absolute paths and {@code ..} segments are refused, and
 *       staged files get generated names inside the staging directory, so no entry name ever reaches the disk;
 *   <li>links, devices, FIFOs and sparse files are refused; directory entries are skipped;
 *   <li>sizes declared by an archive are never trusted: the total, the file count and each entry's
 *       expanded-to-compressed ratio are checked while the bytes are copied, so a bomb is refused after
 *       writing about {@link UnpackLimits#ratioGraceBytes()} of it;
 *   <li>truncation and damage (missing central directory, bad CRC, bad tar header checksum, unexpected end of
 *       data) are refused instead of yielding a partial bundle.
 * </ul>
 *
 * <p>NOTE: one instance serves one bundle and is not thread-safe. {@link #close()} deletes the staging
 * directory with every staged file still in it; move the files you keep out first. A refused {@code add}
 * deletes what it had staged, so {@link #files()} only lists files of accepted uploads.
 */
public final class BundleUnpacker implements AutoCloseable {

    private static final int MAX_PATH_CHARS = 1024;
    private static final int MAX_SEGMENT_BYTES = 255;
    /** Caps GNU long-name and PAX headers, which commons-compress reads whole into memory. */
    private static final long MAX_TAR_METADATA_BYTES = 1L << 20;
    /** Caps the zip central directory, which commons-compress parses whole into memory before any limit applies. */
    private static final long MAX_CENTRAL_DIRECTORY_BYTES = 32L << 20;
    private static final int MAX_GZIP_NAME_BYTES = 1024;
    private static final int COPY_BUFFER = 64 * 1024;
    private static final int TAR_BLOCK = 512;
    /** Zip methods whose decoders ship inside commons-compress; the others need optional jars we do not have. */
    private static final Set<Integer> READABLE_ZIP_METHODS = Set.of(ZipMethod.STORED.getCode(),
            ZipMethod.DEFLATED.getCode(), ZipMethod.ENHANCED_DEFLATED.getCode(), ZipMethod.BZIP2.getCode());
    private static final int UNIX_TYPE_MASK = 0170000;
    private static final int UNIX_REGULAR = 0100000;
    private static final int UNIX_DIRECTORY = 0040000;
    private static final int UNIX_SYMLINK = 0120000;

    private enum Format { NONE, ZIP, TAR, GZIP }

    /** One archive being expanded: its place in the bundle, how messages name it, and how deep it is nested. */
    private record Container(String path, String label, boolean atRoot, int depth) {
        String prefix() {
            return atRoot ? "" : path + "/";
        }
    }

    /** One file written to the staging directory, not yet placed in the bundle. */
    private record Staged(Path file, long size, String sha256) {}

    private final UnpackLimits limits;
    private final Path stagingDir;
    private final List<StagedFile> files = new ArrayList<>();
    private final Set<String> usedPaths = new HashSet<>();
    private final Map<String, Integer> nextCopyNumber = new HashMap<>();
    /** Files written but not yet registered in {@link #files} nor deleted: what a refused add must remove. */
    private final Set<Path> temporaries = new LinkedHashSet<>();
    private long expandedBytes;
    private long entriesSeen;
    private long nextStagedId;
    private long bytesOnDisk;
    private long peakBytesOnDisk;
    private boolean closed;

    /**
     * Creates an unpacker that stages into {@code stagingDir}, which it creates when first needed and owns.
     *
     * @param limits     what one bundle may cost
     * @param stagingDir a directory used by this unpacker alone; {@link #close()} deletes it
     */
    public BundleUnpacker(UnpackLimits limits, Path stagingDir) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.stagingDir = Objects.requireNonNull(stagingDir, "stagingDir");
    }

    /**
     * Adds one uploaded file to the bundle: expands it if it is an archive, else stages it as one file.
     *
     * @param uploadName     the client's name for the file; only its last segment is kept
     * @param uploadedFile   the uploaded bytes on disk; read, never modified or deleted
     * @param contentsAtRoot whether an archive's contents go at the bundle root (pass true when the upload is a
     *                       single archive) rather than under {@code <uploadName>/}
     * @throws BundleRejectedException if the file is unsafe, over a limit or malformed; nothing of it stays staged
     * @throws IOException             if the staging directory cannot be written
     */
    public void add(String uploadName, Path uploadedFile, boolean contentsAtRoot)
            throws BundleRejectedException, IOException {
        if (closed) {
            throw new IllegalStateException("this unpacker is closed");
        }
        Objects.requireNonNull(uploadedFile, "uploadedFile");
        String name = validateName(uploadName);
        Files.createDirectories(stagingDir);
        int filesBefore = files.size();
        long expandedBefore = expandedBytes;
        long entriesBefore = entriesSeen;
        boolean accepted = false;
        try {
            addChecked(name, uploadedFile, contentsAtRoot);
            accepted = true;
        } finally {
            if (!accepted) {
                rollBack(filesBefore, expandedBefore, entriesBefore);
            }
        }
    }

    /** Returns the files staged so far, in the order they were found. */
    public List<StagedFile> files() {
        return Collections.unmodifiableList(files);
    }

    /** Deletes the staging directory and every file still in it. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        temporaries.clear();
        deleteRecursively(stagingDir);
    }

    /** Returns the most bytes the staging directory held at once, by this unpacker's own count; for tests. */
    long peakStagedBytes() {
        return peakBytesOnDisk;
    }

    /**
     * Tells whether a file's first bytes are those of a zip, tar, gzip-compressed tar or gzip file.
     *
     * <p>NOTE: this looks at the signature only; the archive may still be truncated or corrupt.
     */
    public static boolean isArchive(Path file) throws IOException {
        return sniff(file) != Format.NONE;
    }

    /**
     * Checks a client's file name and returns its last segment, the part CrashLab keeps.
     *
     * <p>Browsers may send a full path ({@code C:\fakepath\x.zip}); only {@code x.zip} is kept. Any Unicode is
     * accepted except control characters, bidirectional overrides and unpaired surrogates.
     *
     * @throws BundleRejectedException of kind {@link Kind#BAD_NAME} if the name is empty, {@code .} or
     *                                 {@code ..}, too long, or holds a character that is not accepted
     */
    public static String validateName(String uploadName) throws BundleRejectedException {
        if (uploadName == null) {
            throw new BundleRejectedException(Kind.BAD_NAME, "a file was sent without a name");
        }
        String problem = characterProblem(uploadName);
        if (problem == null && uploadName.length() > MAX_PATH_CHARS) {
            problem = "it is longer than " + MAX_PATH_CHARS + " characters";
        }
        String name = uploadName.substring(Math.max(uploadName.lastIndexOf('/'), uploadName.lastIndexOf('\\')) + 1);
        if (problem == null) {
            problem = segmentProblem(name);
        }
        if (problem != null) {
            throw new BundleRejectedException(Kind.BAD_NAME,
                    "file name " + quote(uploadName) + " is not accepted: " + problem + "; rename the file and upload it again");
        }
        return name;
    }

    // ---- one uploaded file ----

    private void addChecked(String name, Path upload, boolean atRoot) throws BundleRejectedException, IOException {
        // An empty log is still an artifact (the report says it was empty); an empty archive holds nothing at all.
        if (Files.size(upload) == 0 && expectedArchive(name) != null) {
            throw new BundleRejectedException(Kind.EMPTY, quote(name) + " is empty (0 bytes): there is nothing in it to read");
        }
        Format format = sniff(upload);
        if (format == Format.NONE) {
            String expected = expectedArchive(name);
            if (expected != null) {
                throw new BundleRejectedException(Kind.NOT_AN_ARCHIVE, quote(name) + " is not " + expected
                        + "; upload the real archive, or rename the file if it is not meant to be one");
            }
            Staged staged;
            try (InputStream in = Files.newInputStream(upload)) {
                // A loose file is not compressed: there is no ratio to check.
                staged = stage(in, () -> Long.MAX_VALUE, name, null, -1, -1);
            }
            register(name, staged, name);
            return;
        }
        int filesBefore = files.size();
        expand(upload, format, new Container(name, name, atRoot, 1));
        if (files.size() == filesBefore) {
            throw new BundleRejectedException(Kind.EMPTY,
                    quote(name) + " holds no files (only folders, or nothing at all)");
        }
    }

    private static String expectedArchive(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".zip")) {
            return "a zip archive (its content does not start with a zip signature)";
        }
        if (lower.endsWith(".tar")) {
            return "a tar archive (its content does not start with a tar header)";
        }
        if (lower.endsWith(".tgz") || lower.endsWith(".tar.gz")) {
            return "a gzip-compressed tar archive (its content does not start with the gzip signature)";
        }
        if (lower.endsWith(".gz")) {
            return "a gzip file (its content does not start with the gzip signature)";
        }
        return null;
    }

    private void expand(Path file, Format format, Container c) throws BundleRejectedException, IOException {
        switch (format) {
            case ZIP -> expandZip(file, c);
            case GZIP -> expandGzip(file, c);
            case TAR -> {
                try (CountingInputStream raw = new CountingInputStream(
                        new BufferedInputStream(Files.newInputStream(file), COPY_BUFFER))) {
                    expandTar(raw, raw::count, c);
                }
            }
            case NONE -> throw new IllegalArgumentException("not an archive: " + c.label());
        }
    }

    /** Places a staged entry at {@code path}: expands it if it is an archive, else registers it as a bundle file. */
    private void place(Staged staged, String path, String label, boolean atRoot, int depth)
            throws BundleRejectedException, IOException {
        Format format = staged.size() == 0 ? Format.NONE : sniff(staged.file());
        if (format == Format.NONE) {
            register(path, staged, label);
            return;
        }
        if (depth > limits.maxDepth()) {
            throw new BundleRejectedException(Kind.TOO_DEEP, quote(label) + " nests archives more than "
                    + limits.maxDepth() + " levels deep: refused; unpack the inner archives and upload their files");
        }
        try {
            expand(staged.file(), format, new Container(path, label, atRoot, depth));
        } finally {
            deleteStaged(staged.file());
        }
    }

    private void register(String path, Staged staged, String label) throws BundleRejectedException {
        if (path.length() > MAX_PATH_CHARS) {
            throw new BundleRejectedException(Kind.BAD_NAME, quote(label) + " is not accepted: its path in the bundle is longer than "
                    + MAX_PATH_CHARS + " characters");
        }
        if (files.size() >= limits.maxFiles()) {
            throw new BundleRejectedException(Kind.TOO_MANY_FILES, "the bundle holds more than " + limits.maxFiles()
                    + " files (reached at " + quote(label) + "), the most one bundle may hold: refused");
        }
        files.add(new StagedFile(uniquePath(path), staged.file(), staged.size(), staged.sha256()));
        temporaries.remove(staged.file());
    }

    /** Returns {@code path}, or the first free "name (n).ext" if the bundle already holds that path. */
    private String uniquePath(String path) {
        if (usedPaths.add(path)) {
            return path;
        }
        int slash = path.lastIndexOf('/');
        String dir = path.substring(0, slash + 1);
        String last = path.substring(slash + 1);
        int dot = last.lastIndexOf('.');
        String stem = dot > 0 ? last.substring(0, dot) : last;
        String ext = dot > 0 ? last.substring(dot) : "";
        // Counting on from the last number used keeps thousands of same-named entries linear, not quadratic.
        int n = nextCopyNumber.getOrDefault(path, 2);
        String candidate;
        do {
            candidate = dir + stem + " (" + n++ + ")" + ext;
        } while (!usedPaths.add(candidate));
        nextCopyNumber.put(path, n);
        return candidate;
    }

    private void countEntry(Container c) throws BundleRejectedException {
        if (++entriesSeen > entryLimit()) {
            throw tooManyEntries(c);
        }
    }

    /** Bounds entries of every kind, so that millions of folder entries cannot cost unbounded time. */
    private long entryLimit() {
        return 2L * limits.maxFiles();
    }

    private BundleRejectedException tooManyEntries(Container c) {
        return new BundleRejectedException(Kind.TOO_MANY_FILES, quote(c.label()) + " makes the bundle hold more than "
                + entryLimit() + " entries (files and folders), the most one bundle may hold: refused");
    }

    // ---- zip ----

    private void expandZip(Path file, Container c) throws BundleRejectedException, IOException {
        checkCentralDirectory(file, c);
        ZipFile zip;
        try {
            zip = ZipFile.builder().setPath(file).get();
        } catch (IOException | RuntimeException e) {
            throw corrupt(c.label(), describeZipDamage(file), e);
        }
        try {
            List<ZipArchiveEntry> entries;
            try {
                entries = Collections.list(zip.getEntriesInPhysicalOrder());
            } catch (RuntimeException e) {
                throw corrupt(c.label(), "its central directory is damaged", e);
            }
            for (ZipArchiveEntry entry : entries) {
                expandZipEntry(zip, entry, c);
            }
        } finally {
            ZipFile.closeQuietly(zip);
        }
    }

    private void expandZipEntry(ZipFile zip, ZipArchiveEntry entry, Container c)
            throws BundleRejectedException, IOException {
        countEntry(c);
        String raw = entry.getName();
        int unixType = entry.getPlatform() == ZipArchiveEntry.PLATFORM_UNIX ? entry.getUnixMode() & UNIX_TYPE_MASK : 0;
        boolean directory = entry.isDirectory() || raw.endsWith("\\") || unixType == UNIX_DIRECTORY;
        String path = normalizeEntryPath(raw, c.label(), directory);
        if (entry.isUnixSymlink() || unixType == UNIX_SYMLINK) {
            // The link target is the entry's data; it is not read, as it could be as large as any entry.
            throw link(raw, c.label(), "a symbolic link", null);
        }
        if (unixType != 0 && unixType != UNIX_DIRECTORY && unixType != UNIX_REGULAR) {
            throw special(raw, c.label(), switch (unixType) {
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
            throw new BundleRejectedException(Kind.CORRUPT, "archive entry " + quote(raw) + " in " + quote(c.label())
                    + " is encrypted, and CrashLab cannot read password-protected archives; upload it without a password");
        }
        if (!READABLE_ZIP_METHODS.contains(entry.getMethod())) {
            ZipMethod method = ZipMethod.getMethodByCode(entry.getMethod());
            throw new BundleRejectedException(Kind.CORRUPT, "archive entry " + quote(raw) + " in " + quote(c.label())
                    + " uses compression method " + entry.getMethod() + (method == null ? "" : " (" + method + ")")
                    + ", which CrashLab cannot read; re-create the archive with Deflate, the default of zip tools");
        }
        InputStream in;
        try {
            in = zip.getInputStream(entry);
        } catch (IOException | RuntimeException e) {
            throw readFailure(e, c.label(), "in entry " + quote(raw));
        }
        Staged staged;
        try {
            // Every decoder on READABLE_ZIP_METHODS reports its compressed count; were one not to, treating its
            // count as 0 makes the ratio check refuse anything past the grace rather than let a bomb through.
            LongSupplier compressed = in instanceof InputStreamStatistics stats ? stats::getCompressedCount : () -> 0;
            staged = stage(in, compressed, c.label(), raw, entry.getCrc(), entry.getSize());
        } finally {
            closeQuietly(in);
        }
        place(staged, c.prefix() + path, c.label() + "/" + path, false, c.depth() + 1);
    }

    /**
     * Walks the central directory before commons-compress parses it, refusing one with too many entries or an
     * implausible size: {@link ZipFile} holds every entry in memory before any other limit could apply.
     */
    private void checkCentralDirectory(Path file, Container c) throws BundleRejectedException, IOException {
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
            InputStream in = new BufferedInputStream(Channels.newInputStream(ch), COPY_BUFFER);
            ByteBuffer header = ByteBuffer.allocate(46).order(ByteOrder.LITTLE_ENDIAN);
            long records = 0;
            long bytes = 0;
            long allowed = entryLimit() - entriesSeen;
            while (in.readNBytes(header.array(), 0, 46) == 46 && header.getInt(0) == 0x02014b50) {
                long variable = Short.toUnsignedLong(header.getShort(28)) + Short.toUnsignedLong(header.getShort(30))
                        + Short.toUnsignedLong(header.getShort(32));
                records++;
                bytes += 46 + variable;
                if (records > allowed) {
                    throw tooManyEntries(c);
                }
                if (bytes > MAX_CENTRAL_DIRECTORY_BYTES) {
                    throw corrupt(c.label(), "its central directory is implausibly large (over "
                            + humanBytes(MAX_CENTRAL_DIRECTORY_BYTES) + " for " + records + " entries)", null);
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
                    return "unexpected end of archive " + after(last);
                }
                ByteBuffer header = readAt(ch, position, 30);
                if (header.getInt(0) != 0x04034b50) {
                    return header.getInt(0) == 0x02014b50 && last != null
                            ? "its central directory, after entry " + quote(last) + ", is damaged or cut off" : unknown;
                }
                int nameLength = Short.toUnsignedInt(header.getShort(26));
                int extraLength = Short.toUnsignedInt(header.getShort(28));
                long compressed = Integer.toUnsignedLong(header.getInt(18));
                boolean sizeFollowsData = (header.getShort(6) & 0x08) != 0;
                if (position + 30 + nameLength > size) {
                    return "unexpected end of archive " + after(last);
                }
                String name = new String(readAt(ch, position + 30, nameLength).array(), StandardCharsets.UTF_8);
                if (sizeFollowsData || compressed == 0xFFFFFFFFL) {
                    return unknown; // the size is in a data descriptor or a zip64 field: no cheap way on
                }
                long end = position + 30 + nameLength + extraLength + compressed;
                if (end > size) {
                    return "unexpected end of archive in entry " + quote(name);
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

    // ---- gzip ----

    private void expandGzip(Path file, Container c) throws BundleRejectedException, IOException {
        String originalName = gzipOriginalName(file);
        // Counted after the buffer, so that the count is what the decompressor consumed, not what was read ahead.
        try (CountingInputStream raw = new CountingInputStream(
                new BufferedInputStream(Files.newInputStream(file), COPY_BUFFER))) {
            // The JDK's reader, not commons-compress: the latter buffers the header's file name and comment
            // whole, so a header with a gigabyte-long name exhausts the heap. The JDK skips them.
            InputStream gzip;
            try {
                gzip = new GZIPInputStream(raw, 8192);
            } catch (IOException | RuntimeException e) {
                throw readFailure(e, c.label(), "in its gzip header");
            }
            // Bounds the decompressed stream itself: tar headers and skipped entries reach no staged file.
            BufferedInputStream data = new BufferedInputStream(new CappedInputStream(gzip, limits.maxExpandedBytes()),
                    COPY_BUFFER);
            byte[] head;
            try {
                data.mark(TAR_BLOCK);
                head = data.readNBytes(TAR_BLOCK);
                data.reset();
            } catch (IOException | RuntimeException e) {
                throw readFailure(e, c.label(), "");
            }
            if (looksLikeTar(head)) {
                String last = expandTar(data, raw::count, c);
                try {
                    // Reads to the end so that the gzip trailer's CRC and length are checked.
                    data.transferTo(OutputStream.nullOutputStream());
                } catch (IOException | RuntimeException e) {
                    throw readFailure(e, c.label(), after(last));
                }
                return;
            }
            String dir = c.path().substring(0, c.path().lastIndexOf('/') + 1);
            String labelDir = c.label().substring(0, c.label().lastIndexOf('/') + 1);
            String name = gunzippedName(c.path().substring(dir.length()), originalName);
            Staged staged = stage(data, raw::count, c.label(), null, -1, -1);
            // In place: x/foo.log.gz becomes x/foo.log; if that is an archive, it is one level deeper.
            place(staged, dir + name, labelDir + name, c.atRoot(), c.depth() + 1);
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
            return segmentProblem(name) == null ? name : null;
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

    // ---- tar ----

    /** Expands the tar stream {@code in} and returns the name of its last entry, or null if it had none. */
    private String expandTar(InputStream in, LongSupplier compressedRead, Container c)
            throws BundleRejectedException, IOException {
        GuardedTarInputStream tar = new GuardedTarInputStream(in);
        String last = null;
        while (true) {
            TarArchiveEntry entry;
            try {
                entry = tar.getNextEntry();
            } catch (IOException | RuntimeException e) {
                throw readFailure(e, c.label(), after(last));
            }
            if (entry == null) {
                return last;
            }
            countEntry(c);
            String raw = entry.getName();
            boolean directory = entry.isDirectory();
            String path = normalizeEntryPath(raw, c.label(), directory);
            if (entry.isSymbolicLink()) {
                throw link(raw, c.label(), "a symbolic link", entry.getLinkName());
            }
            if (entry.isLink()) {
                throw link(raw, c.label(), "a hard link", entry.getLinkName());
            }
            if (entry.isCharacterDevice()) {
                throw special(raw, c.label(), "a character device");
            }
            if (entry.isBlockDevice()) {
                throw special(raw, c.label(), "a block device");
            }
            if (entry.isFIFO()) {
                throw special(raw, c.label(), "a FIFO (named pipe)");
            }
            if (entry.isSparse()) {
                throw special(raw, c.label(), "a sparse file");
            }
            byte type = entry.getLinkFlag();
            if (directory || type == 'V') { // 'V': a GNU volume label, metadata only
                last = raw;
                continue;
            }
            if (type != '0' && type != 0 && type != '7') { // '7': contiguous file, a regular file elsewhere
                throw special(raw, c.label(), "an entry of unsupported tar type '" + printable(type) + "'");
            }
            long before = compressedRead.getAsLong();
            Staged staged = stage(tar, () -> compressedRead.getAsLong() - before, c.label(), raw, -1, -1);
            place(staged, c.prefix() + path, c.label() + "/" + path, false, c.depth() + 1);
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
            if (isAllZero(record)) {
                endSeen = true;
                return true;
            }
            if (!tarChecksumMatches(record)) {
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
                    throw guard(Kind.CORRUPT, "an oversized long-name or PAX header (" + humanBytes(Math.max(size, 0)) + ")");
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
                        throw new GuardException(Kind.SPECIAL_FILE, "a sparse file");
                    }
                }
            }
            return n;
        }

        private static UncheckedIOException guard(Kind kind, String reason) {
            return new UncheckedIOException(new GuardException(kind, reason));
        }
    }

    /** Raised inside a stream when a check of ours fails, so that the caller can report it precisely. */
    private static final class GuardException extends IOException {
        private static final long serialVersionUID = 1L;
        final Kind kind;

        GuardException(Kind kind, String reason) {
            super(reason);
            this.kind = kind;
        }
    }

    // ---- copying ----

    /**
     * Copies {@code in} to a new staged file while checking the bundle total and the entry's ratio.
     *
     * @param compressedRead the compressed bytes consumed for this entry so far
     * @param entry          the entry's name within {@code label}, or null when the container has no entries
     * @param expectedCrc    the CRC-32 the data must have, or -1
     * @param expectedSize   the size the data must have, or -1
     */
    private Staged stage(InputStream in, LongSupplier compressedRead, String label, String entry,
            long expectedCrc, long expectedSize) throws BundleRejectedException, IOException {
        Path target = stagingDir.resolve(String.format(Locale.ROOT, "%08d.staged", ++nextStagedId));
        MessageDigest sha256 = sha256();
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[COPY_BUFFER];
        String where = entry == null ? "" : "in entry " + quote(entry);
        long written = 0;
        temporaries.add(target);
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (true) {
                int n;
                try {
                    n = in.read(buffer, 0, buffer.length);
                } catch (IOException | RuntimeException e) {
                    throw readFailure(e, label, where);
                }
                if (n < 0) {
                    break;
                }
                if (expandedBytes + n > limits.maxExpandedBytes()) {
                    throw new BundleRejectedException(Kind.TOO_LARGE, quote(label) + " makes the bundle expand beyond "
                            + humanBytes(limits.maxExpandedBytes()) + (entry == null ? "" : " (at entry " + quote(entry) + ")")
                            + ", the most one bundle may hold: refused");
                }
                out.write(buffer, 0, n);
                sha256.update(buffer, 0, n);
                crc.update(buffer, 0, n);
                written += n;
                expandedBytes += n;
                bytesOnDisk += n;
                peakBytesOnDisk = Math.max(peakBytesOnDisk, bytesOnDisk);
                if (written > limits.ratioGraceBytes()
                        && (double) written / Math.max(1, compressedRead.getAsLong()) > limits.maxRatio()) {
                    throw new BundleRejectedException(Kind.RATIO, quote(label) + " expands beyond " + limits.maxRatio() + ":1"
                            + (entry == null ? "" : " (entry " + quote(entry) + ")") + ": refused as a possible zip bomb");
                }
            }
        }
        if (expectedCrc >= 0 && crc.getValue() != expectedCrc) {
            throw corrupt(label, "bad CRC for entry " + quote(entry), null);
        }
        if (expectedSize >= 0 && written != expectedSize) {
            throw corrupt(label, "entry " + quote(entry) + " holds " + written + " bytes where its header says "
                    + expectedSize, null);
        }
        return new Staged(target, written, HexFormat.of().formatHex(sha256.digest()));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    // ---- magic bytes ----

    private static Format sniff(Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(TAR_BLOCK);
        }
        if (head.length >= 4 && head[0] == 'P' && head[1] == 'K'
                && ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6))) {
            return Format.ZIP;
        }
        // Method 8 (deflate) and no reserved flag bits: two magic bytes alone match too much binary data.
        if (head.length >= 3 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b && head[2] == 8
                && (head.length < 4 || (head[3] & 0xe0) == 0)) {
            return Format.GZIP;
        }
        return looksLikeTar(head) ? Format.TAR : Format.NONE;
    }

    private static boolean looksLikeTar(byte[] head) {
        if (head.length < TAR_BLOCK || isAllZero(head)) {
            return false;
        }
        boolean ustar = head[257] == 'u' && head[258] == 's' && head[259] == 't' && head[260] == 'a' && head[261] == 'r';
        return ustar || tarChecksumMatches(head);
    }

    /**
     * Tells whether a 512-byte block carries a valid tar header checksum, accepting the signed sums of old tars.
     *
     * <p>NOTE: {@link TarUtils#verifyCheckSum} throws on a field that is not octal, which is what most
     * non-tar data holds there; this returns false instead.
     */
    private static boolean tarChecksumMatches(byte[] block) {
        int i = 148;
        int end = 156;
        while (i < end && (block[i] == ' ' || block[i] == 0)) {
            i++;
        }
        long stored = 0;
        int digits = 0;
        for (; i < end && block[i] >= '0' && block[i] <= '7'; i++, digits++) {
            stored = stored * 8 + block[i] - '0';
        }
        for (; i < end; i++) {
            if (block[i] != ' ' && block[i] != 0) {
                return false;
            }
        }
        long unsigned = 0;
        long signed = 0;
        for (int j = 0; j < TAR_BLOCK; j++) {
            byte b = j >= 148 && j < end ? (byte) ' ' : block[j];
            unsigned += b & 0xff;
            signed += b;
        }
        return digits > 0 && (stored == unsigned || stored == signed);
    }

    private static boolean isAllZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    // ---- names ----

    /**
     * Returns an entry's normalized path ('/'-separated, no empty or "." segments), or "" for a directory entry
     * that names the root; refuses absolute paths, ".." and names that are not accepted.
     */
    private static String normalizeEntryPath(String raw, String label, boolean directory) throws BundleRejectedException {
        String path = raw.replace('\\', '/');
        boolean drive = path.length() >= 2 && path.charAt(1) == ':'
                && ((path.charAt(0) | 0x20) >= 'a' && (path.charAt(0) | 0x20) <= 'z');
        if (path.startsWith("/") || drive) {
            throw new BundleRejectedException(Kind.UNSAFE_PATH,
                    "archive entry " + quote(raw) + " in " + quote(label) + " has an absolute path: refused");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                throw new BundleRejectedException(Kind.UNSAFE_PATH,
                        "archive entry " + quote(raw) + " in " + quote(label) + " escapes the bundle: refused");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        String problem = null;
        for (String segment : segments) {
            problem = problem != null ? problem : segmentProblem(segment);
        }
        String normalized = String.join("/", segments);
        if (problem == null && normalized.isEmpty() && !directory) {
            problem = "it is empty";
        }
        if (problem == null && normalized.length() > MAX_PATH_CHARS) {
            problem = "its path is longer than " + MAX_PATH_CHARS + " characters";
        }
        if (problem != null) {
            throw new BundleRejectedException(Kind.BAD_NAME, "archive entry " + quote(raw) + " in " + quote(label)
                    + " has a name CrashLab does not accept: " + problem);
        }
        return normalized;
    }

    /** Returns why one path segment is not accepted, or null if it is. */
    private static String segmentProblem(String segment) {
        if (segment.isEmpty()) {
            return "it is empty";
        }
        if (segment.equals(".") || segment.equals("..")) {
            return "`" + segment + "` is not a file name";
        }
        String problem = characterProblem(segment);
        if (problem != null) {
            return problem;
        }
        if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
            return "a name in it is longer than " + MAX_SEGMENT_BYTES + " bytes";
        }
        return null;
    }

    private static String characterProblem(String text) {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) {
                return String.format(Locale.ROOT, "it contains the control character U+%04X", cp);
            }
            if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
                return String.format(Locale.ROOT,
                        "it contains the bidirectional control character U+%04X, which can disguise a file's real name", cp);
            }
            if (Character.isSurrogate((char) cp) && Character.charCount(cp) == 1) {
                return "it is not valid Unicode (an unpaired surrogate)";
            }
            i += Character.charCount(cp);
        }
        return null;
    }

    /** Returns a name fit to show in a message: quoted, without control characters, cut to a readable length. */
    private static String quote(String name) {
        if (name == null) {
            return "`(unnamed)`";
        }
        StringBuilder shown = new StringBuilder("`");
        int i = 0;
        while (i < name.length() && shown.length() <= 200) {
            int cp = name.codePointAt(i);
            // Shown as '?', so that a message cannot carry a terminal escape or reorder its own text.
            shown.appendCodePoint(characterProblem(Character.toString(cp)) == null ? cp : '?');
            i += Character.charCount(cp);
        }
        return shown.append(i < name.length() ? "…`" : "`").toString();
    }

    // ---- rejections ----

    private static BundleRejectedException link(String raw, String label, String what, String target) {
        return new BundleRejectedException(Kind.LINK, "archive entry " + quote(raw) + " in " + quote(label) + " is " + what
                + (target == null || target.isEmpty() ? "" : " (to " + quote(target) + ")")
                + ": refused; CrashLab unpacks only regular files, so archive the files themselves (tar -h, zip without -y)");
    }

    private static BundleRejectedException special(String raw, String label, String what) {
        return new BundleRejectedException(Kind.SPECIAL_FILE, "archive entry " + quote(raw) + " in " + quote(label)
                + " is " + what + ": refused; CrashLab unpacks only regular files");
    }

    private static BundleRejectedException corrupt(String label, String detail, Throwable cause) {
        return new BundleRejectedException(Kind.CORRUPT, quote(label) + " is truncated or corrupt (" + detail + ")", cause);
    }

    private static String after(String lastEntry) {
        return lastEntry == null ? "before the first entry" : "after entry " + quote(lastEntry);
    }

    /** Turns a failure to read archive data into a rejection that says what went wrong and where. */
    private BundleRejectedException readFailure(Throwable failure, String label, String where) {
        Throwable cause = failure instanceof UncheckedIOException unchecked ? unchecked.getCause() : failure;
        String place = where.isEmpty() ? "" : " " + where;
        if (cause instanceof GuardException guard) {
            return switch (guard.kind) {
                case TOO_LARGE -> new BundleRejectedException(Kind.TOO_LARGE, quote(label) + " expands beyond "
                        + humanBytes(limits.maxExpandedBytes()) + ", the most one bundle may hold: refused", guard);
                case SPECIAL_FILE -> new BundleRejectedException(Kind.SPECIAL_FILE, quote(label) + " holds " + guard.getMessage()
                        + place + ": refused; CrashLab unpacks only regular files", guard);
                default -> corrupt(label, guard.getMessage() + place, guard);
            };
        }
        String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
        String reason;
        if (cause instanceof EOFException || message.contains("truncated") || message.contains("premature")
                || message.contains("unexpected end")) {
            reason = "unexpected end of archive";
        } else if (message.contains("crc") || message.contains("checksum") || message.contains("trailer")) {
            reason = "bad checksum";
        } else {
            reason = "invalid data";
        }
        return corrupt(label, reason + place, cause);
    }

    private static String humanBytes(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20)).replace(".0 ", " ");
        }
        if (bytes >= 1L << 10) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / (double) (1L << 10)).replace(".0 ", " ");
        }
        return bytes + " bytes";
    }

    // ---- disk ----

    private void rollBack(int filesBefore, long expandedBefore, long entriesBefore) throws IOException {
        IOException failure = null;
        List<Path> doomed = new ArrayList<>(temporaries);
        while (files.size() > filesBefore) {
            StagedFile removed = files.removeLast();
            usedPaths.remove(removed.path());
            doomed.add(removed.file());
        }
        nextCopyNumber.clear(); // only a hint where to start counting; uniqueness is checked against usedPaths
        for (Path path : doomed) {
            try {
                deleteStaged(path);
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        temporaries.clear();
        expandedBytes = expandedBefore;
        entriesSeen = entriesBefore;
        if (failure != null) {
            throw failure;
        }
    }

    private void deleteStaged(Path path) throws IOException {
        try {
            long size = Files.size(path);
            Files.delete(path);
            bytesOnDisk -= size;
        } catch (NoSuchFileException e) {
            // already gone: nothing to undo
        }
        temporaries.remove(path);
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        // walkFileTree does not follow links: a link planted in the directory is deleted, not its target.
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException | RuntimeException e) {
            // a failure to release a read stream changes nothing about what was staged
        }
    }

    // ---- streams ----

    /** Counts the bytes read from a file: the compressed bytes that ratios are measured against. */
    private static final class CountingInputStream extends FilterInputStream {
        private long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        long count() {
            return count;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(n);
            count += Math.max(skipped, 0);
            return skipped;
        }
    }

    /** Fails once more than {@code cap} bytes have been read through it. */
    private static final class CappedInputStream extends FilterInputStream {
        private final long cap;
        private long count;

        CappedInputStream(InputStream in, long cap) {
            super(in);
            this.cap = cap;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count += n;
                if (count > cap) {
                    throw new GuardException(Kind.TOO_LARGE, "over the size limit");
                }
            }
            return n;
        }

        /** Skips by reading, so that skipped bytes are counted too. */
        @Override
        public long skip(long n) throws IOException {
            byte[] scratch = new byte[(int) Math.min(Math.max(n, 0), COPY_BUFFER)];
            long skipped = 0;
            while (skipped < n) {
                int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
                if (r < 0) {
                    break;
                }
                skipped += r;
            }
            return skipped;
        }
    }
}
