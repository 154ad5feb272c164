package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
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
 * <p>This class is the coordinator: it sniffs each file ({@link ArchiveFormat}), hands archives to the reader of
 * their format ({@link ZipReader}, {@link TarReader}, {@link GzipReader}), and owns what they share: the limits,
 * the staged files ({@code stage}, {@code place}), entry counting and the roll-back of a refused upload. Entry
 * names are checked by {@link EntryNames}; refusals are worded by {@link UnpackMessages}.
 *
 * <p>NOTE: one instance serves one bundle and is not thread-safe. {@link #close()} deletes the staging
 * directory with every staged file still in it; move the files you keep out first. A refused {@code add}
 * deletes what it had staged, so {@link #files()} only lists files of accepted uploads.
 */
public final class BundleUnpacker implements AutoCloseable {

    private static final int MAX_PATH_CHARS = EntryNames.MAX_PATH_CHARS;

    /** One archive being expanded: its place in the bundle, how messages name it, and how deep it is nested. */
    record Container(String path, String label, boolean atRoot, int depth) {
        String prefix() {
            return atRoot ? "" : path + "/";
        }
    }

    /** One file written to the staging directory, not yet placed in the bundle. */
    record Staged(Path file, long size, String sha256) {}

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
        add(uploadName, uploadedFile, null, contentsAtRoot);
    }

    /**
     * As {@link #add(String, Path, boolean)} for a file the caller hands over (an upload the server received into its
     * own scratch space): when it is stored as it is (not an archive), it is moved into the staging directory instead
     * of copied, and {@code sha256}, computed while it was received, is not computed again. A 4 GB log then costs no
     * second write and read.
     *
     * <p>NOTE: {@code uploadedFile} may be gone afterwards (moved, or deleted with a refused add); never pass a file of
     * the user's own. Where it lies on another file system than the staging directory, it is copied as by {@code add}.
     *
     * @param sha256 the file's SHA-256, lowercase hex, as {@link StagedFile#sha256()} gives it
     */
    public void addOwned(String uploadName, Path uploadedFile, String sha256, boolean contentsAtRoot)
            throws BundleRejectedException, IOException {
        add(uploadName, uploadedFile, Objects.requireNonNull(sha256, "sha256"), contentsAtRoot);
    }

    private void add(String uploadName, Path uploadedFile, String knownSha256, boolean contentsAtRoot)
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
            addChecked(name, uploadedFile, knownSha256, contentsAtRoot);
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
        return ArchiveFormat.sniff(file) != ArchiveFormat.NONE;
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
        String problem = EntryNames.characterProblem(uploadName);
        if (problem == null && uploadName.length() > MAX_PATH_CHARS) {
            problem = "it is longer than " + MAX_PATH_CHARS + " characters";
        }
        String name = uploadName.substring(Math.max(uploadName.lastIndexOf('/'), uploadName.lastIndexOf('\\')) + 1);
        if (problem == null) {
            problem = EntryNames.segmentProblem(name);
        }
        if (problem != null) {
            throw new BundleRejectedException(Kind.BAD_NAME,
                    "file name " + UnpackMessages.quote(uploadName) + " is not accepted: " + problem + "; rename the file and upload it again");
        }
        return name;
    }

    // ---- one uploaded file ----

    private void addChecked(String name, Path upload, String knownSha256, boolean atRoot)
            throws BundleRejectedException, IOException {
        // An empty log is still an artifact (the report says it was empty); an empty archive holds nothing at all.
        if (Files.size(upload) == 0 && expectedArchive(name) != null) {
            throw new BundleRejectedException(Kind.EMPTY, UnpackMessages.quote(name) + " is empty (0 bytes): there is nothing in it to read");
        }
        ArchiveFormat format = ArchiveFormat.sniff(upload);
        if (format == ArchiveFormat.NONE) {
            String expected = expectedArchive(name);
            if (expected != null) {
                throw new BundleRejectedException(Kind.NOT_AN_ARCHIVE, UnpackMessages.quote(name) + " is not " + expected
                        + "; upload the real archive, or rename the file if it is not meant to be one");
            }
            Staged staged = knownSha256 == null ? null : adopt(upload, knownSha256, name);
            if (staged == null) {
                try (InputStream in = Files.newInputStream(upload)) {
                    // A loose file is not compressed: there is no ratio to check.
                    staged = stage(in, () -> Long.MAX_VALUE, name, null, -1, -1);
                }
            }
            register(name, staged, name);
            return;
        }
        int filesBefore = files.size();
        expand(upload, format, new Container(name, name, atRoot, 1));
        if (files.size() == filesBefore) {
            throw new BundleRejectedException(Kind.EMPTY,
                    UnpackMessages.quote(name) + " holds no files (only folders, or nothing at all)");
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

    /** Hands an archive to the reader of its format. */
    private void expand(Path file, ArchiveFormat format, Container c) throws BundleRejectedException, IOException {
        switch (format) {
            case ZIP -> ZipReader.expand(this, file, c);
            case GZIP -> GzipReader.expand(this, file, c);
            case TAR -> {
                try (UnpackStreams.CountingInputStream raw = new UnpackStreams.CountingInputStream(
                        new BufferedInputStream(Files.newInputStream(file), UnpackStreams.COPY_BUFFER))) {
                    TarReader.expand(this, raw, raw::count, c);
                }
            }
            case NONE -> throw new IllegalArgumentException("not an archive: " + c.label());
        }
    }

    /** Places a staged entry at {@code path}: expands it if it is an archive, else registers it as a bundle file. */
    void place(Staged staged, String path, String label, boolean atRoot, int depth)
            throws BundleRejectedException, IOException {
        ArchiveFormat format = staged.size() == 0 ? ArchiveFormat.NONE : ArchiveFormat.sniff(staged.file());
        if (format == ArchiveFormat.NONE) {
            register(path, staged, label);
            return;
        }
        if (depth > limits.maxDepth()) {
            throw new BundleRejectedException(Kind.TOO_DEEP, UnpackMessages.quote(label) + " nests archives more than "
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
            throw new BundleRejectedException(Kind.BAD_NAME, UnpackMessages.quote(label) + " is not accepted: its path in the bundle is longer than "
                    + MAX_PATH_CHARS + " characters");
        }
        if (files.size() >= limits.maxFiles()) {
            throw new BundleRejectedException(Kind.TOO_MANY_FILES, "the bundle holds more than " + limits.maxFiles()
                    + " files (reached at " + UnpackMessages.quote(label) + "), the most one bundle may hold: refused");
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

    void countEntry(Container c) throws BundleRejectedException {
        if (++entriesSeen > entryLimit()) {
            throw tooManyEntries(c);
        }
    }

    /** Bounds entries of every kind, so that millions of folder entries cannot cost unbounded time. */
    long entryLimit() {
        return 2L * limits.maxFiles();
    }

    BundleRejectedException tooManyEntries(Container c) {
        return new BundleRejectedException(Kind.TOO_MANY_FILES, UnpackMessages.quote(c.label()) + " makes the bundle hold more than "
                + entryLimit() + " entries (files and folders), the most one bundle may hold: refused");
    }

    /** What one bundle may cost; the readers check the limits that only they can see (the central directory). */
    UnpackLimits limits() {
        return limits;
    }

    /** Entries of every kind seen so far in this bundle. */
    long entriesSeen() {
        return entriesSeen;
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
    Staged stage(InputStream in, LongSupplier compressedRead, String label, String entry,
            long expectedCrc, long expectedSize) throws BundleRejectedException, IOException {
        Path target = stagingDir.resolve(String.format(Locale.ROOT, "%08d.staged", ++nextStagedId));
        MessageDigest sha256 = sha256();
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[UnpackStreams.COPY_BUFFER];
        String where = entry == null ? "" : "in entry " + UnpackMessages.quote(entry);
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
                    throw new BundleRejectedException(Kind.TOO_LARGE, UnpackMessages.quote(label) + " makes the bundle expand beyond "
                            + UnpackMessages.humanBytes(limits.maxExpandedBytes()) + (entry == null ? "" : " (at entry " + UnpackMessages.quote(entry) + ")")
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
                    throw new BundleRejectedException(Kind.RATIO, UnpackMessages.quote(label) + " expands beyond " + limits.maxRatio() + ":1"
                            + (entry == null ? "" : " (entry " + UnpackMessages.quote(entry) + ")") + ": refused as a possible zip bomb");
                }
            }
        }
        if (expectedCrc >= 0 && crc.getValue() != expectedCrc) {
            throw UnpackMessages.corrupt(label, "bad CRC for entry " + UnpackMessages.quote(entry), null);
        }
        if (expectedSize >= 0 && written != expectedSize) {
            throw UnpackMessages.corrupt(label, "entry " + UnpackMessages.quote(entry) + " holds " + written + " bytes where its header says "
                    + expectedSize, null);
        }
        return new Staged(target, written, HexFormat.of().formatHex(sha256.digest()));
    }

    /**
     * Moves a handed-over loose file into the staging directory, counted as {@link #stage} counts what it writes;
     * returns null (nothing moved) where the file lies on another file system, so that the caller copies it.
     */
    private Staged adopt(Path upload, String sha256, String label) throws BundleRejectedException, IOException {
        long size = Files.size(upload);
        if (expandedBytes + size > limits.maxExpandedBytes()) {
            throw new BundleRejectedException(Kind.TOO_LARGE, UnpackMessages.quote(label) + " makes the bundle expand beyond "
                    + UnpackMessages.humanBytes(limits.maxExpandedBytes()) + ", the most one bundle may hold: refused");
        }
        Path target = stagingDir.resolve(String.format(Locale.ROOT, "%08d.staged", nextStagedId + 1));
        try {
            Files.move(upload, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.AtomicMoveNotSupportedException e) {
            return null;
        }
        nextStagedId++;
        temporaries.add(target);
        expandedBytes += size;
        bytesOnDisk += size;
        peakBytesOnDisk = Math.max(peakBytesOnDisk, bytesOnDisk);
        return new Staged(target, size, sha256);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Turns a failure to read archive data into a rejection that says what went wrong and where. */
    BundleRejectedException readFailure(Throwable failure, String label, String where) {
        Throwable cause = failure instanceof UncheckedIOException unchecked ? unchecked.getCause() : failure;
        String place = where.isEmpty() ? "" : " " + where;
        if (cause instanceof UnpackStreams.GuardException guard) {
            return switch (guard.kind) {
                case TOO_LARGE -> new BundleRejectedException(Kind.TOO_LARGE, UnpackMessages.quote(label) + " expands beyond "
                        + UnpackMessages.humanBytes(limits.maxExpandedBytes()) + ", the most one bundle may hold: refused", guard);
                case SPECIAL_FILE -> new BundleRejectedException(Kind.SPECIAL_FILE, UnpackMessages.quote(label) + " holds " + guard.getMessage()
                        + place + ": refused; CrashLab unpacks only regular files", guard);
                default -> UnpackMessages.corrupt(label, guard.getMessage() + place, guard);
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
        return UnpackMessages.corrupt(label, reason + place, cause);
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
}
