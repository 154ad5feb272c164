package dev.crashlab.ingest;

import dev.crashlab.bundle.BlobStore;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.BundleStatus;
import dev.crashlab.bundle.BundleViews.ArtifactView;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.diagnosis.DiagnosisService;
import dev.crashlab.domain.DomainException;
import dev.crashlab.facts.BundleFacts;
import dev.crashlab.facts.BundleReader;
import dev.crashlab.facts.ReadBudget;
import dev.crashlab.facts.store.StoredFacts;
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
 * by reading every bundle still {@code PROCESSING} again.
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

    private final Set<Long> queued = ConcurrentHashMap.newKeySet();
    private final Map<Long, CompletableFuture<Void>> waiters = new ConcurrentHashMap<>();
    private volatile ExecutorService pool;

    private ExecutorService pool() {
        ExecutorService p = pool;
        if (p == null) {
            synchronized (this) {
                if (pool == null) {
                    int n = Math.max(1, config.ingest().workers());
                    pool = Executors.newFixedThreadPool(n, Thread.ofPlatform().name("bundle-ingest-", 1).daemon().factory());
                }
                p = pool;
            }
        }
        return p;
    }

    /** Resumes what a stopped server left: unfinished bundles, and bundles an older reader version read. */
    void resumeAtStartup(@Observes @Priority(5000) StartupEvent event) {
        List<Long> ids = QuarkusTransaction.requiringNew().call(() -> {
            Bundle.update("status = ?1, artifactsRead = 0 where readerVersion is not null and readerVersion < ?2",
                    BundleStatus.PROCESSING, BundleReader.VERSION);
            return Bundle.getEntityManager()
                    .createQuery("select b.id from Bundle b where b.status in :s order by b.id", Long.class)
                    .setParameter("s", List.of(BundleStatus.PROCESSING, BundleStatus.FAILED))
                    .getResultList();
        });
        if (!ids.isEmpty()) {
            LOG.infof("reading %d bundle(s) left unfinished or read by an older reader version", ids.size());
        }
        ids.forEach(this::submit);
    }

    void stop(@Observes ShutdownEvent event) {
        ExecutorService p = pool;
        if (p != null) {
            p.shutdownNow();
        }
    }

    /** Queues a stored bundle for reading (once, however often it is asked). */
    public void submit(long bundleId) {
        if (queued.add(bundleId)) {
            pool().execute(() -> {
                try {
                    process(bundleId);
                } finally {
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
        try {
            Optional<BundleView> found = bundles.find(bundleId);
            if (found.isEmpty()) {
                return; // deleted meanwhile
            }
            if (found.get().status() == BundleStatus.FAILED) { // read again
                QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1 where id = ?2", BundleStatus.PROCESSING, bundleId));
            }
            List<BundleReader.Item> items = found.get().artifacts().stream().map(this::item).toList();
            long[] lastProgress = {System.nanoTime()};
            BundleFacts read = new BundleReader(budget()).read(items, (done, total) -> {
                if (System.nanoTime() - lastProgress[0] > PROGRESS_EVERY_NANOS) {
                    lastProgress[0] = System.nanoTime();
                    QuarkusTransaction.requiringNew().run(() -> Bundle.update("artifactsRead = ?1 where id = ?2", done, bundleId));
                }
            });
            if (!stored.store(bundleId, read)) {
                return;
            }
            diagnoses.computeQuietly(bundleId);
            QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1 where id = ?2", BundleStatus.READY, bundleId));
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            // FAILED: the list says so; read again at the next start; waiters hear of it now
            LOG.errorf(e, "reading bundle %d failed; it is read again at the next start", bundleId);
            try {
                QuarkusTransaction.requiringNew().run(() -> Bundle.update("status = ?1 where id = ?2 and status = ?3",
                        BundleStatus.FAILED, bundleId, BundleStatus.PROCESSING));
            } catch (RuntimeException again) {
                LOG.warnf("could not mark bundle %d as failed: %s", bundleId, again.getMessage());
            }
        } finally {
            CompletableFuture<Void> w = waiters.remove(bundleId);
            if (w != null) {
                w.complete(null);
            }
        }
    }

    private BundleReader.Item item(ArtifactView a) {
        return new BundleReader.Item(a.path(), ArtifactType.valueOf(a.type()), a.size(), () -> blobs.open(a.sha256()));
    }

    /**
     * Waits until the bundle is ready, at most {@code crashlab.ingest.read-wait}.
     *
     * @throws DomainException NOT_FOUND for an unknown bundle, CONFLICT when it is still being read after the wait
     */
    public void awaitReady(long bundleId) {
        long deadline = System.nanoTime() + config.ingest().readWait().toNanos();
        while (true) {
            CompletableFuture<Void> w = waiters.computeIfAbsent(bundleId, k -> new CompletableFuture<>());
            Optional<BundleView> b = bundles.find(bundleId);
            if (b.isEmpty()) {
                throw DomainException.notFound("no bundle " + bundleId);
            }
            if (b.get().status() == BundleStatus.READY) {
                return;
            }
            if (b.get().status() == BundleStatus.FAILED && !queued.contains(bundleId)) {
                throw new DomainException(DomainException.Kind.CONFLICT, "bundle-read-failed", "Bundle could not be read",
                        "reading bundle " + bundleId + " failed; the server log says why, and it is read again at the next start");
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
