package dev.crashlab.bundle;

import java.io.IOException;

/**
 * The blob store cannot be used at all (the object store does not answer, its bucket is missing, or it belongs to
 * another deployment): requests that need it are answered 503 with this message, which names the store.
 */
public class BlobStoreUnavailableException extends IOException {

    public BlobStoreUnavailableException(String message) {
        super(message);
    }

    public BlobStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
