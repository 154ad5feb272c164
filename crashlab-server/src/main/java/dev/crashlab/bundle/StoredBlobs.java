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
        // NOTE: no request here: whether the store answers, takes writes and is this deployment's is Deployment's
        // start-up check, which keeps the server up (readiness DOWN, uploads 503) while it cannot be used
        local = store;
    }

    /** Where the blobs are, for messages: {@code s3://bucket/prefix/} or the local folder. */
    public String where() {
        return local instanceof S3BlobStore s3 ? s3.location().toString() : ((LocalBlobStore) local).root().toString();
    }

    /** Whether the blobs are on an object store (shared by design) rather than in a local folder. */
    public boolean shared() {
        return local instanceof S3BlobStore;
    }

    /** Where the deployment marker is: the marker object's address, or the marker file. */
    public String markerWhere() {
        return local instanceof S3BlobStore s3 ? "s3://" + s3.location().bucket() + "/" + s3.markerKey()
                : ((LocalBlobStore) local).markerPath().toString();
    }

    /** Checks that the store exists and takes writes (a probe object on S3; the folder was made at start). */
    public void checkWritable() throws IOException {
        if (local instanceof S3BlobStore s3) {
            s3.checkWritable();
        }
    }

    /** The deployment identity in the store's marker, or null when there is none. */
    public String readMarker() throws IOException {
        return local instanceof S3BlobStore s3 ? s3.readMarker() : ((LocalBlobStore) local).readMarker();
    }

    /** Writes the deployment identity into the store's marker. */
    public void writeMarker(String identity) throws IOException {
        if (local instanceof S3BlobStore s3) {
            s3.writeMarker(identity);
        } else {
            ((LocalBlobStore) local).writeMarker(identity);
        }
    }

    /** Every blob with the time the store wrote it. */
    public java.util.Map<String, java.time.Instant> listWithTimes() throws IOException {
        return local instanceof S3BlobStore s3 ? s3.listWithTimes() : ((LocalBlobStore) local).listWithTimes();
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
    public int clearIncoming(java.time.Duration olderThan) throws IOException {
        return local.clearIncoming(olderThan);
    }
}
