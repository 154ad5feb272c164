package dev.crashlab.ingest;

import dev.crashlab.bundle.BlobStore;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.BundleStatus;
import dev.crashlab.bundle.ReadLeases;
import dev.crashlab.bundle.BundleViews.ArtifactView;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.diagnose.service.DiagnosisService;
import dev.crashlab.domain.DomainException;
import dev.crashlab.metrics.Waits;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.BundleReader;
import dev.crashlab.reader.ReadBudget;
import dev.crashlab.reader.service.StoredFacts;
import dev.crashlab.sniff.ArtifactType;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * Reads stored bundles in the background on a bounded pool: one pass over each artifact, the reading stored,
 * then the diagnosis, then the bundle is {@link BundleStatus#READY}.
 *
 * <p>NOTE: the upload commits the bundle as {@link BundleStatus#PROCESSING} before anything here runs, and each
 * step here replaces what an earlier, interrupted run stored; so a server killed at any point resumes at start-up
 * by reading every bundle still {@code PROCESSING} again. A reading that throws ends {@link BundleStatus#FAILED}
 * with the reason in words ({@code Bundle.readError}); {@link #readAgain} reads it again.
 */
@ApplicationScoped
public class BundleIngest {

    private static final Logger LOG = Logger.getLogger(BundleIngest.class);
    private static final long PROGRESS_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    @Inject
    BundleService bundles;

    @Inject
    BlobStore blobs;

    @Inject
    StoredFacts stored;

    @Inject
    DiagnosisService diagnoses;

    @Inject
    CrashLabConfig config;

    @Inject
    Waits waits;

    @Inject
    ReadLeases leases;

    private final Set<Long> queued = ConcurrentHashMap.newKeySet();
    private final Set<Long> running = ConcurrentHashMap.newKeySet();
    private volatile java.util.concurrent.ScheduledExecutorService timer;
    private final Map<Long, CompletableFuture<Void>> waiters = new ConcurrentHashMap<>();
    private volatile ExecutorService pool;

    private ExecutorService pool() {
        ExecutorService p = pool;
        if (p == null) {
            synchronized (this) {
                if (pool == null) {
                    int n = Math.max(1, config.ingest().workers());
                    // the lowest priority: reading in the background never slows a report read or a search
                    // (an OS priority with -XX:ThreadPriorityPolicy=1, as bin/crashlab runs it; see UploadSlots)
                    pool = Executors.newFixedThreadPool(n, Thread.ofPlatform().name("bundle-ingest-", 1).daemon()
                            .priority(Thread.MIN_PRIORITY).factory());
                }
                p = pool;
            }
        }
        return p;
    }

    /**
     * Resumes what a stopped server left (its own unfinished bundles, bundles whose server's lease ran out, bundles an
     * older reader version read), then renews this server's leases and looks for bundles another server left, on a timer.
     */
    void resumeAtStartup(@Observes @Priority(5000) StartupEvent event) {
        QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1, artifactsRead = 0, readError = null,"
                + " readLeaseOwner = null, readLeaseUntil = null where readerVersion is not null and readerVersion < ?2",
                BundleStatus.PROCESSING, BundleReader.VERSION));
        List<Long> ids = leases.orphaned();
        if (!ids.isEmpty()) {
            LOG.infof("reading %d bundle(s) left unfinished, or read by an older reader version", ids.size());
        }
        ids.forEach(this::submit);
        long lease = Math.max(300, leases.lease().toMillis());
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("bundle-lease").daemon().factory());
        timer.scheduleWithFixedDelay(this::renewQuietly, lease / 3, lease / 3, TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::takeOverQuietly, lease / 2, lease / 2, TimeUnit.MILLISECONDS);
    }

    private void renewQuietly() {
        try {
            leases.renew(Set.copyOf(running));
        } catch (RuntimeException e) {
            LOG.warnf("could not renew this server's leases on the bundles it reads: %s", e.toString());
        }
    }

    /** Submits the PROCESSING bundles whose server's lease ran out (it died, or stopped mid-way). */
    private void takeOverQuietly() {
        try {
            for (long id : leases.orphaned()) {
                if (!queued.contains(id)) {
                    LOG.infof("taking over bundle %d: the server that was reading it let its lease run out", id);
                    submit(id);
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("could not look for bundles left by other servers: %s", e.toString());
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
        ExecutorService p = pool;
        if (p != null) {
            p.shutdownNow();
        }
    }

    /**
     * Queues a stored bundle for reading (once, however often it is asked); it is read if this server holds its lease
     * or can take it ({@link ReadLeases#take}), and left to the server that holds it otherwise.
     */
    public void submit(long bundleId) {
        if (queued.add(bundleId)) {
            long queuedAt = System.nanoTime();
            pool().execute(() -> {
                waits.record(Waits.What.INGEST_QUEUE, System.nanoTime() - queuedAt);
                try {
                    if (leases.take(bundleId)) {
                        running.add(bundleId);
                        process(bundleId);
                    }
                } catch (RuntimeException e) {
                    LOG.warnf("could not take bundle %d to read it (another server takes it when its lease runs out): %s",
                            bundleId, e.toString());
                } finally {
                    running.remove(bundleId);
                    queued.remove(bundleId);
                }
            });
        }
    }

    private ReadBudget budget() {
        CrashLabConfig.Ingest c = config.ingest();
        return new ReadBudget(c.maxBytes().asLongValue(), c.maxLinesKept(), c.maxKeptChars(), c.maxFacts(), c.maxTime());
    }

    private void process(long bundleId) {
        String step = "reading its files";
        try {
            Optional<BundleView> found = bundles.find(bundleId);
            if (found.isEmpty()) {
                return; // deleted meanwhile
            }
            List<BundleReader.Item> items = found.get().artifacts().stream().map(this::item).toList();
            long[] lastProgress = {System.nanoTime()};
            java.time.Duration pause = config.ingest().testPause();
            BundleFacts read = new BundleReader(budget()).read(items, (done, total) -> {
                testPause(pause);
                if (!pause.isZero() || System.nanoTime() - lastProgress[0] > PROGRESS_EVERY_NANOS) {
                    lastProgress[0] = System.nanoTime();
                    QuarkusTransaction.requiringNew().run(() -> Bundle.update("artifactsRead = ?1 where id = ?2", done, bundleId));
                }
            });
            step = "storing what was read";
            if (!stored.store(bundleId, read)) {
                return;
            }
            step = "diagnosing it";
            testPause(pause);
            diagnoses.computeQuietly(bundleId);
            QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1, readError = null, readLeaseOwner = null,"
                    + " readLeaseUntil = null where id = ?2", BundleStatus.READY, bundleId));
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            // a failure that would happen again at once is not retried in a loop: the bundle says why and waits
            // for someone to read it again (POST /api/bundles/{id}/read); a server killed meanwhile resumes it
            String reason = reason(step, e);
            LOG.errorf(e, "reading bundle %d failed: %s", bundleId, reason);
            markFailed(bundleId, reason);
        } finally {
            CompletableFuture<Void> w = waiters.remove(bundleId);
            if (w != null) {
                w.complete(null);
            }
        }
    }

    // crashlab.ingest.test-pause: only tests that kill the server mid-way set it
    private static void testPause(java.time.Duration pause) {
        if (!pause.isZero()) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void markFailed(long bundleId, String reason) {
        try {
            QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1, readError = ?2, readLeaseOwner = null,"
                    + " readLeaseUntil = null where id = ?3 and status = ?4", BundleStatus.FAILED, reason, bundleId, BundleStatus.PROCESSING));
        } catch (RuntimeException e) {
            // the database itself is failing: left PROCESSING, read again at the next start
            LOG.errorf(e, "could not mark bundle %d as failed; it is read again at the next start", bundleId);
        }
    }

    /** Says why reading failed, in words for the bundle page (our own messages only, never bundle content). */
    static String reason(String step, Throwable e) {
        String why;
        if (e instanceof OutOfMemoryError) {
            why = "the server ran out of memory (lower crashlab.ingest.max-bytes or give the server more heap)";
        } else if (e instanceof StackOverflowError) {
            why = "a file is nested too deeply to read";
        } else if (e instanceof java.io.IOException io) {
            why = io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage();
        } else {
            why = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        }
        String out = "CrashLab failed while " + step + ": " + why;
        return out.length() > 1990 ? out.substring(0, 1990) + "…" : out;
    }

    /**
     * Reads a bundle again (one that failed, or one already read), keeping its files; start-up resumes it if the
     * server stops meanwhile.
     *
     * @throws DomainException NOT_FOUND for an unknown bundle
     */
    public BundleView readAgain(long bundleId) {
        int changed = QuarkusTransaction.requiringNew().call(() -> Bundle.update(
                "status = ?1, readError = null, artifactsRead = 0 where id = ?2 and status <> ?1", BundleStatus.PROCESSING, bundleId));
        BundleView view = bundles.find(bundleId).orElseThrow(() -> DomainException.notFound("no bundle " + bundleId));
        if (changed > 0 || view.status() == BundleStatus.PROCESSING) {
            submit(bundleId);
        }
        return view;
    }

    private BundleReader.Item item(ArtifactView a) {
        return new BundleReader.Item(a.path(), ArtifactType.valueOf(a.type()), a.size(), () -> {
            try {
                return blobs.open(a.sha256());
            } catch (java.nio.file.NoSuchFileException e) {
                throw new java.io.IOException("the stored copy of " + a.path() + " is missing from the blob store (SHA-256 "
                        + a.sha256() + "); restore it from a backup, or delete the bundle and upload it again", e);
            }
        });
    }

    /**
     * Waits until the bundle is ready, at most {@code crashlab.ingest.read-wait}.
     *
     * @throws DomainException NOT_FOUND for an unknown bundle, CONFLICT when it is still being read after the wait
     */
    public void awaitReady(long bundleId) {
        long t0 = System.nanoTime();
        try {
            awaitReadyUntil(bundleId, t0 + config.ingest().readWait().toNanos());
        } finally {
            waits.record(Waits.What.BUNDLE_READY, System.nanoTime() - t0);
        }
    }

    private void awaitReadyUntil(long bundleId, long deadline) {
        while (true) {
            CompletableFuture<Void> w = waiters.computeIfAbsent(bundleId, k -> new CompletableFuture<>());
            Optional<BundleView> b = bundles.find(bundleId);
            if (b.isEmpty()) {
                throw DomainException.notFound("no bundle " + bundleId);
            }
            if (b.get().status() == BundleStatus.READY) {
                return;
            }
            if (b.get().status() == BundleStatus.FAILED) {
                if (b.get().progress().readerVersion() != null) {
                    return; // an earlier reading is stored: it stands until the bundle is read again
                }
                throw new DomainException(DomainException.Kind.CONFLICT, "bundle-read-failed", "Reading the bundle failed",
                        b.get().readError() + ". Read it again from its page (POST /api/bundles/" + bundleId
                                + "/read) once the cause is fixed");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                BundleView v = b.get();
                throw new DomainException(DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                        "CrashLab is still reading bundle " + bundleId + " (" + v.progress().artifactsRead() + " of "
                                + v.progress().artifacts() + " files so far); its page shows the result when it is done");
            }
            try {
                w.get(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                // look at the database again: another server process may have finished it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DomainException(DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                        "interrupted while waiting for bundle " + bundleId);
            }
        }
    }

    /** Tells how many bundles are queued or being read (for tests and the health page). */
    public int pending() {
        return queued.size();
    }
}
