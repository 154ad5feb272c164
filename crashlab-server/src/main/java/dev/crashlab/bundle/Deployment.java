package dev.crashlab.bundle;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * This deployment's identity, and whether its blob store can be used: the guard that keeps a server from sweeping
 * (or writing into) blobs that belong to another deployment.
 *
 * <p>NOTE: the identity is made by the first server that starts on a database ({@code deployment} row, V47) and is
 * written as a marker into the blob store ({@code <prefix>crashlab-deployment} on S3, {@code blobs/DEPLOYMENT} in a
 * local folder). At start-up an object store whose marker names another deployment stops the server with a message
 * naming both; a store that does not answer, has no bucket or takes no writes leaves the server up but not ready
 * ({@code /q/health/ready} DOWN with the reason, uploads 503), re-checked while readiness is asked. A local folder
 * with another marker is taken over with a warning (it lies under this server's own data folder; a fresh database
 * beside old test data is common) and not swept that start. The sweep of unreferenced blobs runs only once the
 * store is known to be this deployment's.
 */
@ApplicationScoped
public class Deployment {

    private static final Logger LOG = Logger.getLogger(Deployment.class);
    private static final long RECHECK_NANOS = 2_000_000_000L;

    @Inject
    StoredBlobs blobs;
    @Inject
    BundleService bundles;
    @Inject
    dev.crashlab.config.CrashLabConfig config;
    private java.util.concurrent.ScheduledExecutorService timer;

    private volatile String identity;
    private volatile boolean newDatabase;
    private volatile String problem = "the blob store has not been checked yet";
    private long lastCheck;

    void onStart(@Observes @Priority(10) StartupEvent event) {
        claimIdentity();
        String p = verify(true);
        problem = p;
        if (p == null && !skipSweepOnce) {
            bundles.sweepQuietly(true);
        } else if (p != null) {
            LOG.errorf("not ready: %s", p);
        }
        long every = config.blobSweepInterval().toMillis();
        if (every > 0) {
            timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "crashlab-blob-sweep");
                t.setDaemon(true);
                return t;
            });
            // only while the store is this deployment's and answers; one server at a time (BundleService.sweep)
            timer.scheduleWithFixedDelay(() -> {
                if (problem() == null) {
                    bundles.sweepQuietly(false);
                }
            }, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    @jakarta.annotation.PreDestroy
    void stopTimer() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** This deployment's identity (after start-up). */
    public String identity() {
        return identity;
    }

    /** Why the blob store cannot be used now, or null when it can (re-checked at most every 2 s while it cannot). */
    public String problem() {
        if (problem != null && identity != null) {
            synchronized (this) {
                if (problem != null && System.nanoTime() - lastCheck > RECHECK_NANOS) {
                    problem = verify(false);
                    if (problem == null) {
                        LOG.infof("the blob store %s is usable again", blobs.where());
                    }
                }
            }
        }
        return problem;
    }

    /**
     * Throws when the blob store cannot be used.
     *
     * @throws BlobStoreUnavailableException naming the store and why
     */
    public void requireStore() throws BlobStoreUnavailableException {
        String p = problem();
        if (p != null) {
            throw new BlobStoreUnavailableException(p + "; nothing was stored. Retry when the server's readiness (/q/health/ready) is UP");
        }
    }

    private void claimIdentity() {
        String fresh = UUID.randomUUID().toString();
        String[] before = new String[1];
        identity = QuarkusTransaction.requiringNew().call(() -> {
            var em = Bundle.getEntityManager();
            before[0] = (String) em.createNativeQuery("select identity from deployment where id = 1").getSingleResult();
            em.createNativeQuery("update deployment set identity = ?1 where id = 1 and identity is null")
                    .setParameter(1, fresh).executeUpdate();
            return (String) em.createNativeQuery("select identity from deployment where id = 1").getSingleResult();
        });
        newDatabase = before[0] == null;
        if (newDatabase && identity.equals(fresh)) {
            LOG.infof("this database is a new deployment: %s", identity);
        }
    }

    /** Checks the store; returns null when usable, else why not; at start-up, throws when it is another deployment's. */
    private String verify(boolean startup) {
        lastCheck = System.nanoTime();
        String marker;
        try {
            blobs.checkWritable();
            marker = blobs.readMarker();
            if (marker == null) {
                blobs.writeMarker(identity);
                LOG.infof("marked the blob store %s as deployment %s (%s)", blobs.where(), identity, blobs.markerWhere());
                return null;
            }
        } catch (IOException | RuntimeException e) {
            String m = e.getMessage() == null ? e.toString() : e.getMessage();
            return m.contains("object store") || !blobs.shared() ? m
                    : "the object store " + blobs.where() + " cannot be used: " + m;
        }
        if (marker.equals(identity)) {
            return null;
        }
        if (!blobs.shared()) {
            LOG.warnf("the local blob folder %s was marked as deployment %s, but this database is deployment %s;"
                    + " taking it over (no blob is swept at this start)", blobs.where(), marker, identity);
            try {
                blobs.writeMarker(identity);
            } catch (IOException e) {
                return "cannot mark the blob folder " + blobs.where() + ": " + e.getMessage();
            }
            skipSweepOnce = true;
            return null;
        }
        String message = "the object store " + blobs.where() + " belongs to deployment " + marker + " (its marker "
                + blobs.markerWhere() + "), but this server's database belongs to deployment " + identity
                + (newDatabase ? " (a new database: it had no deployment until this start)" : "")
                + ". Refusing to start so that no blob of deployment " + marker + " is touched. To fix it: give this"
                + " deployment a bucket or prefix of its own (CRASHLAB_BLOB_STORE), or point this server at deployment "
                + marker + "'s database (or restore that database's backup); delete the marker only if deployment "
                + marker + " is gone for good and this one is to adopt its blobs.";
        if (startup) {
            throw new IllegalStateException(message);
        }
        return message;
    }

    private volatile boolean skipSweepOnce;
}
