package dev.crashlab.bundle;

import dev.crashlab.config.CrashLabConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The server's blob store: the local one under {@code <data-dir>/blobs}, or an S3-compatible object store when
 * {@code crashlab.blob-store} is {@code s3://bucket/prefix} (several servers sharing one database share it too).
 *
 * <p>NOTE: a bean of its own (not a producer) so that decorators apply to it; the tests count reads with one.
 */
@ApplicationScoped
public class StoredBlobs implements BlobStore {

    @Inject
    CrashLabConfig config;

    private BlobStore local;

    @PostConstruct
    void init() {
        Path dataDir = config.dataDir().toAbsolutePath().normalize();
        String address = config.blobStore().map(String::strip).filter(s -> !s.isEmpty()).orElse("local");
        if (address.equals("local")) {
            local = new LocalBlobStore(dataDir.resolve("blobs"));
            return;
        }
        S3BlobStore.Location where;
        try {
            where = S3BlobStore.parse(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("CRASHLAB_BLOB_STORE: " + e.getMessage()
                    + " (leave it unset, or 'local', for <data-dir>/blobs)", e);
        }
        CrashLabConfig.S3 s = config.s3();
        if (s.accessKeyId().isPresent() != s.secretAccessKey().isPresent()) {
            throw new IllegalStateException("CRASHLAB_S3_ACCESS_KEY_ID and CRASHLAB_S3_SECRET_ACCESS_KEY go together: set both or neither");
        }
        S3BlobStore store = new S3BlobStore(new S3BlobStore.Settings(where, s.endpoint().orElse(null), s.region(),
                s.accessKeyId().orElse(null), s.secretAccessKey().orElse(null), s.pathStyle(), s.partSize().asLongValue(),
                dataDir.resolve("tmp").resolve("s3-spool")));
        try {
            store.check();
        } catch (IOException e) {
            store.close();
            throw new IllegalStateException(e.getMessage(), e);
        }
        local = store;
    }

    @jakarta.annotation.PreDestroy
    void close() {
        if (local instanceof S3BlobStore s3) {
            s3.close();
        }
    }

    @Override
    public boolean contains(String sha256) throws IOException {
        return local.contains(sha256);
    }

    @Override
    public boolean putFile(Path source, String sha256) throws IOException {
        return local.putFile(source, sha256);
    }

    @Override
    public String put(InputStream in) throws IOException {
        return local.put(in);
    }

    @Override
    public InputStream open(String sha256) throws IOException {
        return local.open(sha256);
    }

    @Override
    public boolean delete(String sha256) throws IOException {
        return local.delete(sha256);
    }

    @Override
    public List<String> list() throws IOException {
        return local.list();
    }

    @Override
    public int clearIncoming() throws IOException {
        return local.clearIncoming();
    }
}
