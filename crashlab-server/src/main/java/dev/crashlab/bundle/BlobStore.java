package dev.crashlab.bundle;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Keeps file contents under their SHA-256: where uploaded artifacts' bytes live.
 *
 * <p>NOTE: readers get streams, never paths, so that a store need not be a local disk (an object store
 * implements this too). A blob appears whole or not at all; the same bytes stored twice are one blob.
 * Deciding when a blob is no longer used is the caller's job (the database knows).
 */
public interface BlobStore {

    /** Tells whether a blob with this hash is stored. */
    boolean contains(String sha256) throws IOException;

    /**
     * Moves a local file whose SHA-256 the caller computed into the store; returns true if the blob is new.
     *
     * <p>NOTE: the source is consumed either way (moved in, or deleted as a duplicate).
     */
    boolean putFile(Path source, String sha256) throws IOException;

    /** Stores everything {@code in} yields and returns its SHA-256. */
    String put(InputStream in) throws IOException;

    /** Opens a stored blob for reading. */
    InputStream open(String sha256) throws IOException;

    /** Deletes a blob if present; returns whether it was. */
    boolean delete(String sha256) throws IOException;

    /** Lists the hashes of all stored blobs (housekeeping and tests). */
    List<String> list() throws IOException;

    /**
     * Deletes what writes cut short by a crash left behind, begun more than {@code olderThan} ago (younger ones may be
     * uploads still running); returns how many went.
     */
    int clearIncoming(java.time.Duration olderThan) throws IOException;

    /** Returns a fresh SHA-256 digest. */
    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
