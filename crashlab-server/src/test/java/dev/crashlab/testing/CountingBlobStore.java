package dev.crashlab.testing;

import dev.crashlab.bundle.BlobStore;
import jakarta.annotation.Priority;
import jakarta.decorator.Decorator;
import jakarta.decorator.Delegate;
import jakarta.enterprise.inject.Any;
import jakarta.inject.Inject;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, per blob, how often the server opens it and how many of its bytes it reads: what acceptance 1 of
 * issue 13 measures (one upload and one diagnosis read each artifact once; later reads read none).
 *
 * <p>NOTE: a CDI decorator on every test's blob store; it only counts. Tests share one server, so they look at
 * blobs of their own (unique bytes) and at differences.
 */
@Decorator
@Priority(10)
public class CountingBlobStore implements BlobStore {

    private static final Map<String, AtomicLong> OPENS = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> BYTES = new ConcurrentHashMap<>();

    @Inject
    @Delegate
    @Any
    BlobStore delegate;

    /** How often the blob has been opened so far. */
    public static long opens(String sha256) {
        AtomicLong n = OPENS.get(sha256);
        return n == null ? 0 : n.get();
    }

    /** How many of the blob's bytes have been read so far. */
    public static long bytesRead(String sha256) {
        AtomicLong n = BYTES.get(sha256);
        return n == null ? 0 : n.get();
    }

    @Override
    public InputStream open(String sha256) throws IOException {
        OPENS.computeIfAbsent(sha256, k -> new AtomicLong()).incrementAndGet();
        AtomicLong bytes = BYTES.computeIfAbsent(sha256, k -> new AtomicLong());
        return new FilterInputStream(delegate.open(sha256)) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    bytes.incrementAndGet();
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    bytes.addAndGet(n);
                }
                return n;
            }

            @Override
            public long skip(long n) throws IOException {
                long s = super.skip(n);
                bytes.addAndGet(Math.max(s, 0)); // skipped bytes were fetched all the same
                return s;
            }
        };
    }

    @Override
    public boolean contains(String sha256) throws IOException {
        return delegate.contains(sha256);
    }

    @Override
    public boolean putFile(Path source, String sha256) throws IOException {
        return delegate.putFile(source, sha256);
    }

    @Override
    public String put(InputStream in) throws IOException {
        return delegate.put(in);
    }

    @Override
    public boolean delete(String sha256) throws IOException {
        return delegate.delete(sha256);
    }

    @Override
    public List<String> list() throws IOException {
        return delegate.list();
    }

    @Override
    public int clearIncoming(java.time.Duration olderThan) throws IOException {
        return delegate.clearIncoming(olderThan);
    }
}
