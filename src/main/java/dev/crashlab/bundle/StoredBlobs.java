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
 * The server's blob store: the local one under {@code <data-dir>/blobs}.
 *
 * <p>NOTE: a bean of its own (not a producer) so that decorators apply to it; the tests count reads with one.
 */
@ApplicationScoped
public class StoredBlobs implements BlobStore {

    @Inject
    CrashLabConfig config;

    private LocalBlobStore local;

    @PostConstruct
    void init() {
        local = new LocalBlobStore(config.dataDir().toAbsolutePath().normalize().resolve("blobs"));
    }

    @Override
    public boolean contains(String sha256) {
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
