package dev.crashlab.bundle;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Stores file contents on local disk under their SHA-256, sharded as {@code ab/cd/abcd...}.
 *
 * <p>NOTE: a blob appears only by an atomic rename of a complete file, so a crash mid-write leaves at
 * most a stray file under {@code .incoming/}, never a half-written blob; the same bytes stored twice
 * occupy one file. Blobs are fsynced before that rename, and files and folders are readable by the
 * owner only (POSIX). Deciding when a blob is no longer used is the caller's job (the database knows).
 */
public final class LocalBlobStore implements BlobStore {

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private final Path root;
    private final Path incoming;

    /** Opens (creating if needed) the store rooted at {@code root}. */
    public LocalBlobStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.incoming = this.root.resolve(".incoming");
        try {
            Files.createDirectories(incoming);
            ownerOnly(this.root, true);
            ownerOnly(incoming, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create blob store at " + this.root, e);
        }
    }

    /** Returns the store's root folder. */
    public Path root() {
        return root;
    }

    /** Returns where the blob with this hash lives (whether or not it exists). */
    public Path pathOf(String sha256) {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("not a lowercase sha-256: " + sha256);
        }
        return root.resolve(sha256.substring(0, 2)).resolve(sha256.substring(2, 4)).resolve(sha256);
    }

    /** Tells whether a blob with this hash is stored. */
    @Override
    public boolean contains(String sha256) {
        return Files.isRegularFile(pathOf(sha256));
    }

    /**
     * Moves a file whose SHA-256 the caller computed into the store; returns true if the blob is new.
     *
     * <p>NOTE: the source is consumed either way (moved in, or deleted as a duplicate).
     */
    @Override
    public boolean putFile(Path source, String sha256) throws IOException {
        Path target = pathOf(sha256);
        if (Files.isRegularFile(target)) {
            Files.deleteIfExists(source);
            return false;
        }
        folders(target);
        Path temp = incoming.resolve(UUID.randomUUID() + ".tmp");
        try {
            Files.move(source, temp, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            // The source is on another file system: copy next to the store first, then rename.
            Files.copy(source, temp);
            Files.delete(source);
        }
        return publish(temp, target);
    }

    /** Stores everything {@code in} yields and returns its SHA-256. */
    @Override
    public String put(InputStream in) throws IOException {
        Path temp = incoming.resolve(UUID.randomUUID() + ".tmp");
        MessageDigest digest = BlobStore.sha256();
        try (OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), digest)) {
            in.transferTo(out);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        String sha = HexFormat.of().formatHex(digest.digest());
        Path target = pathOf(sha);
        folders(target);
        publish(temp, target);
        return sha;
    }

    private boolean publish(Path temp, Path target) throws IOException {
        try {
            // POSIX rename replaces silently, so test first; a concurrent twin with equal bytes is harmless.
            if (Files.exists(target)) {
                Files.delete(temp);
                return false;
            }
            // the bytes reach the disk before the name does: a power cut never publishes a hollow blob
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            ownerOnly(temp, false);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (FileAlreadyExistsException e) {
            Files.deleteIfExists(temp);
            return false;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    /**
     * Makes the two folders above a blob, owner-only: permissions are set once, by whoever creates a folder (created
     * with them, then set again past the umask), never again for every blob stored in it.
     */
    private void folders(Path target) throws IOException {
        Path l2 = target.getParent();
        if (Files.isDirectory(l2)) {
            return;
        }
        folder(l2.getParent());
        folder(l2);
    }

    private static void folder(Path d) throws IOException {
        boolean posix = Files.getFileAttributeView(d.getParent(), PosixFileAttributeView.class) != null;
        try {
            if (posix) {
                Files.createDirectory(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                ownerOnly(d, true);
            } else {
                Files.createDirectory(d);
            }
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(d)) {
                throw e;
            }
        }
    }

    /** Makes a blob or a blob folder readable by its owner only, where the file system has POSIX permissions. */
    private static void ownerOnly(Path p, boolean dir) throws IOException {
        if (Files.getFileAttributeView(p, PosixFileAttributeView.class) != null) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(dir ? "rwx------" : "rw-------"));
        }
    }

    /** Deletes what writes cut short by a crash left in {@code .incoming/}; returns how many files went. */
    @Override
    public int clearIncoming(java.time.Duration olderThan) throws IOException {
        int n = 0;
        java.time.Instant before = java.time.Instant.now().minus(olderThan);
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(incoming)) {
            for (Path p : leftovers) {
                boolean old;
                try {
                    old = olderThan.isZero() || Files.getLastModifiedTime(p).toInstant().isBefore(before);
                } catch (java.nio.file.NoSuchFileException gone) {
                    continue;
                }
                if (old && Files.deleteIfExists(p)) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Opens a stored blob for reading. */
    @Override
    public InputStream open(String sha256) throws IOException {
        return Files.newInputStream(pathOf(sha256));
    }

    /** Deletes a blob if present; returns whether it was. */
    @Override
    public boolean delete(String sha256) throws IOException {
        Path path = pathOf(sha256);
        boolean deleted = Files.deleteIfExists(path);
        if (deleted) {
            pruneEmpty(path.getParent());
        }
        return deleted;
    }

    private void pruneEmpty(Path dir) {
        for (Path d = dir; d != null && !d.equals(root); d = d.getParent()) {
            try {
                Files.delete(d);
            } catch (IOException notEmptyOrRaced) {
                return;
            }
        }
    }

    /** Lists the hashes of all stored blobs (for housekeeping and tests; walks the disk). */
    @Override
    public List<String> list() throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> l1 = Files.newDirectoryStream(root, p -> p.getFileName().toString().length() == 2)) {
            for (Path a : l1) {
                try (DirectoryStream<Path> l2 = Files.newDirectoryStream(a)) {
                    for (Path b : l2) {
                        try (DirectoryStream<Path> l3 = Files.newDirectoryStream(b)) {
                            for (Path f : l3) {
                                String name = f.getFileName().toString();
                                if (SHA256.matcher(name).matches()) {
                                    out.add(name);
                                }
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    /** The marker file's name in the store's folder: which deployment owns these blobs. */
    public static final String MARKER = "DEPLOYMENT";

    /** Where the deployment marker lives. */
    public Path markerPath() {
        return root.resolve(MARKER);
    }

    /** Reads the deployment identity in the marker file, or null when there is none. */
    public String readMarker() throws IOException {
        Path m = markerPath();
        return Files.isRegularFile(m) ? Files.readString(m).strip() : null;
    }

    /** Writes the deployment identity into the marker file (whole or not at all). */
    public void writeMarker(String identity) throws IOException {
        Path temp = Files.createTempFile(incoming, "marker-", ".tmp");
        Files.writeString(temp, identity + "\n");
        Files.move(temp, markerPath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Lists every stored blob with its modification time (for the sweep's grace period). */
    public java.util.Map<String, java.time.Instant> listWithTimes() throws IOException {
        java.util.Map<String, java.time.Instant> out = new java.util.HashMap<>();
        for (String sha : list()) {
            try {
                out.put(sha, Files.getLastModifiedTime(pathOf(sha)).toInstant());
            } catch (java.nio.file.NoSuchFileException gone) {
                // deleted meanwhile
            }
        }
        return out;
    }
}
