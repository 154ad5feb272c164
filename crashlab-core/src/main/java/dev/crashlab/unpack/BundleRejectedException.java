package dev.crashlab.unpack;

import java.util.Objects;

/**
 * Signals that an upload was refused: unsafe, over a limit, or not what its name says.
 *
 * <p>NOTE: the message is meant for the person who uploaded the bundle. It names the file or archive
 * entry at fault and what they can do about it, and never carries stack traces or server paths; the
 * cause, when there is one, is for the server log only.
 */
public class BundleRejectedException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why an upload was refused; each kind maps to one problem type in the API. */
    public enum Kind {
        /** A file or entry name that is empty, too long, or holds control or bidi-override characters. */
        BAD_NAME,
        /** An archive entry with an absolute path or a {@code ..} segment. */
        UNSAFE_PATH,
        /** A symbolic or hard link inside an archive. */
        LINK,
        /** A device, FIFO, socket or sparse file inside an archive. */
        SPECIAL_FILE,
        /** An uploaded file of 0 bytes, or an uploaded archive with no files in it. */
        EMPTY,
        /** A file named like an archive whose content is no archive. */
        NOT_AN_ARCHIVE,
        /** A truncated or damaged archive, or one CrashLab cannot read (encrypted, unsupported method). */
        CORRUPT,
        /** More bytes than the bundle may expand to. */
        TOO_LARGE,
        /** More files (or entries) than a bundle may hold. */
        TOO_MANY_FILES,
        /** Archives nested deeper than allowed. */
        TOO_DEEP,
        /** An entry that expands far more than real data does: a likely decompression bomb. */
        RATIO
    }

    private final Kind kind;

    /** Creates a rejection of the given kind with a message for the uploader. */
    public BundleRejectedException(Kind kind, String message) {
        this(kind, message, null);
    }

    /** Creates a rejection of the given kind with a message for the uploader and the low-level cause for the log. */
    public BundleRejectedException(Kind kind, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** Returns why the upload was refused. */
    public Kind kind() {
        return kind;
    }
}
