package dev.crashlab.bundle;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.metrics.Waits;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Where uploads are unpacked, typed, redacted and stored: a few threads of low priority
 * ({@code crashlab.upload.concurrency}, one per core by default), so that while a team uploads, the request threads
 * that read reports and search get the cores first. The request thread waits (blocked, not computing) for its
 * upload's result; the time in line is the {@code upload-slot} wait on {@code /q/metrics}.
 *
 * <p>NOTE: a thread's priority becomes an OS priority only with {@code -XX:ThreadPriorityPolicy=1} (bin/crashlab and
 * the container image pass it); then {@link #PRIORITY} runs at nice 3 (about half a request thread's share of a busy
 * core: someone waits for an upload) and background reading at {@link Thread#MIN_PRIORITY}, nice 10 with
 * {@code -XX:JavaPriority1_To_OSPriority=10} (a tenth: nobody waits on it). Without the flag the JVM ignores
 * priorities and only the bound on concurrency holds. Lowering a thread's priority needs no privilege; raising one
 * back would, so these threads keep theirs for life.
 */
@ApplicationScoped
public class UploadSlots {

    /** A step that may throw what an upload throws. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws Exception;
    }

    /** The upload threads' Java priority: above background reading, below requests. */
    public static final int PRIORITY = Thread.MIN_PRIORITY + 1;

    @Inject
    CrashLabConfig config;

    @Inject
    Waits waits;

    private volatile ExecutorService pool;

    /** The number of uploads processed at once. */
    public int size() {
        int n = config.upload().concurrency();
        return n > 0 ? n : Runtime.getRuntime().availableProcessors();
    }

    private ExecutorService pool() {
        ExecutorService p = pool;
        if (p == null) {
            synchronized (this) {
                if (pool == null) {
                    pool = Executors.newFixedThreadPool(size(), Thread.ofPlatform().name("upload-store-", 1).daemon()
                            .priority(PRIORITY).factory());
                }
                p = pool;
            }
        }
        return p;
    }

    void stop(@Observes ShutdownEvent event) {
        ExecutorService p = pool;
        if (p != null) {
            p.shutdownNow();
        }
    }

    /**
     * Runs {@code step} on an upload thread and returns its result, or throws what it threw; the caller's route tags
     * the waits inside it. If the caller is interrupted before the step starts, it never runs; once started, it is
     * waited for (a half-stored upload cleans up after itself, an abandoned one would not be read).
     */
    public <T> T run(Step<T> step) throws Exception {
        String route = Waits.route();
        long queuedAt = System.nanoTime();
        Future<T> f = pool().submit(() -> {
            waits.record(Waits.What.UPLOAD_SLOT, System.nanoTime() - queuedAt, route);
            Waits.enterRoute(route);
            try {
                return step.run();
            } finally {
                Waits.leaveRoute();
            }
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (f.cancel(false)) {
                        throw new java.io.InterruptedIOException("the upload was interrupted before it was stored");
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception x) {
                throw x;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
