package dev.crashlab.bundle;

import java.nio.file.Files;

/** The blob store contract on the local disk. */
class LocalBlobStoreContractTest extends BlobStoreContract {

    @Override
    BlobStore store() throws Exception {
        return new LocalBlobStore(Files.createTempDirectory(tmp, "blobs"));
    }
}
