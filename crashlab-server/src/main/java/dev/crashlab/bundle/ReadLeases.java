package dev.crashlab.bundle;

import dev.crashlab.config.CrashLabConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Leases on reading bundles (V49): which server reads a {@link BundleStatus#PROCESSING} bundle, and until when. The
 * server that stores a bundle holds its lease from the upload's commit; it renews it while it reads; when it dies,
 * any other server takes the bundle over once the lease has run out, as reproduction jobs go back to the queue.
 *
 * <p>NOTE: a server's id lives in its data folder ({@code server-id}), so a server restarted on its folder takes its own
 * bundles back at once instead of waiting for its old leases to run out; servers never share a data folder. Times are
 * the database's clock ({@link dev.crashlab.config.DbClock}), as for reproduction-job leases, so servers' own clocks
 * do not matter; a server paused longer than its lease makes a bundle be read twice (harmless: each reading replaces the last), never lost.
 */
@ApplicationScoped
public class ReadLeases {

    private static final Logger LOG = Logger.getLogger(ReadLeases.class);

    @Inject
    CrashLabConfig config;
    @Inject
    dev.crashlab.config.DbClock clock;

    private String self;

    @PostConstruct
    void init() {
        Path file = config.dataDir().toAbsolutePath().normalize().resolve("server-id");
        try {
            if (Files.exists(file)) {
                self = Files.readString(file).strip();
            }
            if (self == null || self.isEmpty() || self.length() > 64) {
                self = UUID.randomUUID().toString();
                Files.createDirectories(file.getParent());
                Files.writeString(file, self + "\n");
            }
        } catch (IOException e) {
            self = UUID.randomUUID().toString();
            LOG.warnf("cannot keep this server's id in %s (%s); using %s for this run", file, e.getMessage(), self);
        }
    }

    /** This server's id (the owner of the leases it holds). */
    public String self() {
        return self;
    }

    /** How long a lease lasts without renewal. */
    public Duration lease() {
        return config.ingest().lease();
    }

    /** Sets a new bundle's lease to this server (before it is persisted). */
    public void hold(Bundle fresh) {
        fresh.readLeaseOwner = self;
        fresh.readLeaseUntil = clock.now().plus(lease());
    }

    /**
     * Takes the lease on a PROCESSING bundle if it is free, run out, or already this server's; returns whether this
     * server now holds it (false: another server reads it, or it is no longer PROCESSING, or gone).
     */
    public boolean take(long bundleId) {
        Instant now = clock.now();
        return QuarkusTransaction.requiringNew().call(() -> Bundle.update("readLeaseOwner = ?1, readLeaseUntil = ?2"
                + " where id = ?3 and status = ?4 and (readLeaseOwner is null or readLeaseOwner = ?1 or readLeaseUntil is null"
                + " or readLeaseUntil < ?5)", self, now.plus(lease()), bundleId, BundleStatus.PROCESSING, now)) > 0;
    }

    /** Renews this server's leases on these bundles; returns how many it still held. */
    public int renew(Collection<Long> bundleIds) {
        if (bundleIds.isEmpty()) {
            return 0;
        }
        Instant until = clock.now().plus(lease());
        return QuarkusTransaction.requiringNew().call(() -> Bundle.update("readLeaseUntil = ?1 where id in ?2 and readLeaseOwner = ?3"
                + " and status = ?4", until, List.copyOf(bundleIds), self, BundleStatus.PROCESSING));
    }

    /** PROCESSING bundles no live server holds: no lease, a lease run out, or this server's own (it restarted). */
    public List<Long> orphaned() {
        Instant now = clock.now();
        return QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager()
                .createQuery("select b.id from Bundle b where b.status = :s and (b.readLeaseOwner is null or b.readLeaseUntil is null"
                        + " or b.readLeaseUntil < :now or b.readLeaseOwner = :self) order by b.id", Long.class)
                .setParameter("s", BundleStatus.PROCESSING).setParameter("now", now).setParameter("self", self)
                .getResultList());
    }
}
