package dev.crashlab.retention;

import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Caller;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.config.FirstInsert;
import dev.crashlab.config.RetentionConfig;
import dev.crashlab.crashes.service.CrashSearchService;
import dev.crashlab.domain.DomainException;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Deletes bundles past the retention age (not pinned, no confirmed cause) and keeps each user within the storage
 * quota. Both write audit rows: {@code retention.delete} per deleted bundle (actor {@code retention}),
 * {@code quota.refused} per refused upload, {@code bundle.pin}/{@code bundle.unpin}.
 *
 * <p>NOTE: several servers on one database may sweep at once; a bundle another one deleted first is skipped.
 */
@ApplicationScoped
public class RetentionService {

    private static final Logger LOG = Logger.getLogger(RetentionService.class);
    /** The audit log's actor for what the sweep does. */
    public static final String ACTOR = "retention";

    @Inject
    RetentionConfig config;

    @Inject
    BundleService bundles;

    @Inject
    CrashSearchService crashes;

    @Inject
    AuditLog audit;

    /** The settings and the caller's usage, as the UI shows them. */
    public record Usage(int retentionDays, Long quotaBytes, long usedBytes, long bundles) {}

    /**
     * The bundles a sweep may delete, given the cut-off as {@code ?1}: uploaded before it, not pinned, no confirmed
     * cause, and no reproduction job that a worker may still run (queued, claimed or running: deleting the bundle
     * under it would leave the job's result with no bundle to show it on).
     */
    static final String DUE = " from bundle b where b.uploaded_at < ?1 and b.pinned = false"
            + " and not exists (select 1 from bundle_resolution r where r.bundle_id = b.id)"
            + " and not exists (select 1 from repro_job j where j.bundle_id = b.id and j.state in ('QUEUED', 'CLAIMED', 'RUNNING'))";

    /** What one sweep did. */
    public record SweepReport(int deleted, Instant cutoff) {}

    /**
     * What an admin sees of retention: the settings in force, what each uploader holds against the quota, and what a
     * sweep run now would delete.
     *
     * @param retentionDays bundles older than this many days are deleted (0: kept forever)
     * @param quotaBytes what one user's bundles may add up to (null: no limit)
     * @param sweepInterval how often the sweep runs, as ISO-8601 ({@code PT1H})
     * @param maxDeletesPerSweep the most bundles one sweep deletes
     * @param holders every uploader's stored bytes and bundles, largest first
     * @param nextSweep the bundles a sweep run now would delete, oldest first (at most {@code maxDeletesPerSweep})
     * @param nextSweepTotal how many bundles are past the age in all (later sweeps take the rest)
     * @param cutoff bundles uploaded before this are past the age; null when retention is off
     */
    public record Overview(int retentionDays, Long quotaBytes, String sweepInterval, int maxDeletesPerSweep,
            List<Holder> holders, List<Doomed> nextSweep, long nextSweepTotal, Instant cutoff) {}

    /**
     * One uploader's share.
     *
     * @param owner the user (or token) that uploaded the bundles; null for bundles with no recorded uploader
     * @param quotaShare usedBytes / quota (1.0 is full); null when there is no quota
     */
    public record Holder(String owner, long usedBytes, long bundles, Double quotaShare) {}

    /** A bundle the next sweep would delete. */
    public record Doomed(long bundleId, String name, Instant uploadedAt, String owner, long sizeBytes) {}

    /** The settings, each uploader's holdings and the next sweep's bundles, as of {@code now}. */
    public Overview overview(Instant now) {
        return overview(now, config.maxDeletesPerSweep());
    }

    /** {@link #overview(Instant)} listing at most {@code listed} of the bundles due (tests: all of them). */
    Overview overview(Instant now, int listed) {
        Long quota = config.quota().map(q -> q.asLongValue()).orElse(null);
        int days = config.days();
        Instant cutoff = days <= 0 ? null : now.minus(days, ChronoUnit.DAYS);
        int max = Math.max(1, listed);
        return QuarkusTransaction.requiringNew().call(() -> {
            var em = Bundle.getEntityManager();
            @SuppressWarnings("unchecked")
            List<Object[]> held = em.createNativeQuery("select o.owner, coalesce(sum(a.size_bytes), 0), count(distinct b.id)"
                    + " from bundle b left join bundle_owner o on o.bundle_id = b.id left join artifact a on a.bundle_id = b.id"
                    + " group by o.owner order by 2 desc, 1").getResultList();
            List<Holder> holders = held.stream().map(r -> {
                long bytes = ((Number) r[1]).longValue();
                return new Holder((String) r[0], bytes, ((Number) r[2]).longValue(),
                        quota == null || quota == 0 ? null : (double) bytes / quota);
            }).toList();
            List<Doomed> doomed = List.of();
            long total = 0;
            if (cutoff != null) {
                String eligible = DUE;
                total = ((Number) em.createNativeQuery("select count(*)" + eligible).setParameter(1, cutoff).getSingleResult())
                        .longValue();
                @SuppressWarnings("unchecked")
                List<Object[]> rows = em.createNativeQuery("select b.id, b.name, b.uploaded_at,"
                        + " (select o.owner from bundle_owner o where o.bundle_id = b.id),"
                        + " (select coalesce(sum(a.size_bytes), 0) from artifact a where a.bundle_id = b.id)" + eligible
                        + " order by b.uploaded_at, b.id").setParameter(1, cutoff).setMaxResults(max).getResultList();
                doomed = rows.stream().map(r -> new Doomed(((Number) r[0]).longValue(), (String) r[1], instant(r[2]),
                        (String) r[3], ((Number) r[4]).longValue())).toList();
            }
            return new Overview(days, quota, config.sweepInterval().toString(), Math.max(1, config.maxDeletesPerSweep()), holders,
                    doomed, total, cutoff);
        });
    }

    // a native query's timestamp-with-time-zone column, as the driver hands it over
    private static Instant instant(Object v) {
        return switch (v) {
            case Instant i -> i;
            case java.time.OffsetDateTime o -> o.toInstant();
            case java.sql.Timestamp t -> t.toInstant();
            case java.time.ZonedDateTime z -> z.toInstant();
            default -> throw new IllegalStateException("unexpected timestamp type " + v.getClass());
        };
    }

    /** The settings and what {@code owner}'s bundles add up to. */
    public Usage usage(String owner) {
        long[] used = used(owner);
        return new Usage(config.days(), config.quota().map(q -> q.asLongValue()).orElse(null), used[0], used[1]);
    }

    // bytes and count of the owner's bundles
    private static long[] used(String owner) {
        return QuarkusTransaction.requiringNew().call(() -> usedInTransaction(owner));
    }

    // the same, read in the caller's transaction
    private static long[] usedInTransaction(String owner) {
        // stored bytes: the artifacts as kept (unpacked), not the uploaded archives
        Object[] row = (Object[]) Bundle.getEntityManager().createNativeQuery(
                "select coalesce(sum(a.size_bytes), 0), count(distinct o.bundle_id) from bundle_owner o"
                        + " join bundle b on b.id = o.bundle_id left join artifact a on a.bundle_id = b.id"
                        + " where o.owner = ?1").setParameter(1, owner).getSingleResult();
        return new long[] {((Number) row[0]).longValue(), ((Number) row[1]).longValue()};
    }

    /**
     * Refuses an upload of {@code incoming} bytes that would take the caller past the quota (and writes the refusal to
     * the audit log).
     *
     * @throws DomainException TOO_LARGE (413) saying how much is used and what to do
     */
    public void checkQuota(Caller who, long incoming) {
        if (config.quota().isEmpty()) {
            return;
        }
        refuseOver(who, incoming, used(who.name())[0]);
    }

    /**
     * The check that counts: {@link #checkQuota} again, inside the transaction that stores a new bundle of
     * {@code incoming} bytes (before its owner is recorded there). It first locks the caller's {@code quota_lock} row
     * (V50) until that transaction ends, so two uploads of one person commit one after the other and the second sees
     * the first's bytes: two uploads racing past the early check cannot both take the caller over the quota. Other
     * people's uploads do not wait. The refusal's audit row is written in a transaction of its own, since this one
     * rolls back.
     *
     * @throws DomainException TOO_LARGE (413), as {@link #checkQuota}
     */
    public void checkQuotaInCommit(Caller who, long incoming) {
        if (config.quota().isEmpty()) {
            return;
        }
        lockOwner(who.name());
        refuseOver(who, incoming, usedInTransaction(who.name())[0]);
    }

    // the owner's lock row: made once (in a transaction of its own: two first uploads may race to make it, and the
    // loser's insert meets the key), then held
    private static void lockOwner(String owner) {
        var em = Bundle.getEntityManager();
        if (em.createNativeQuery("select owner from quota_lock where owner = ?1").setParameter(1, owner).getResultList().isEmpty()) {
            FirstInsert.ifAbsent(() -> Bundle.getEntityManager().createNativeQuery("insert into quota_lock (owner) values (?1)")
                    .setParameter(1, owner).executeUpdate());
        }
        em.createNativeQuery("select owner from quota_lock where owner = ?1 for update").setParameter(1, owner).getResultList();
    }

    private void refuseOver(Caller who, long incoming, long used) {
        long quota = config.quota().get().asLongValue();
        if (used + incoming > quota) {
            QuarkusTransaction.requiringNew().run(() -> audit.record(who, "quota.refused", null,
                    "upload of " + incoming + " bytes; " + used + " of " + quota + " bytes used"));
            throw new DomainException(DomainException.Kind.TOO_LARGE, "quota-exceeded", "Storage quota reached",
                    "your bundles take " + human(used) + " of your " + human(quota) + " quota, and this upload is " + human(incoming)
                            + "; delete bundles you no longer need, or ask an administrator to raise crashlab.retention.quota");
        }
    }

    /** Bytes as a person reads them: 150 KiB, 3.2 MiB, 1.5 GiB. */
    static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes / 1024.0;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v >= 100 || v == Math.rint(v) ? String.format(java.util.Locale.ROOT, "%.0f", v)
                : String.format(java.util.Locale.ROOT, "%.1f", v)) + " " + units[u];
    }

    /** Pins or unpins a bundle (and writes it to the audit log); false when there is no such bundle. */
    public boolean pin(long bundleId, boolean pinned, Caller who) {
        int n = QuarkusTransaction.requiringNew().call(() -> Bundle.update("pinned = ?1 where id = ?2", pinned, bundleId));
        if (n == 0) {
            return false;
        }
        audit.record(who, pinned ? "bundle.pin" : "bundle.unpin", "bundle " + bundleId, null);
        return true;
    }

    /**
     * Deletes the bundles uploaded before {@code now} minus the retention age that are neither pinned nor confirmed, at
     * most {@code crashlab.retention.max-deletes-per-sweep}; nothing when retention is off ({@code days = 0}).
     */
    public SweepReport sweep(Instant now) {
        int days = config.days();
        if (days <= 0) {
            return new SweepReport(0, null);
        }
        Instant cutoff = now.minus(days, ChronoUnit.DAYS);
        @SuppressWarnings("unchecked")
        List<Object[]> doomed = QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager().createNativeQuery(
                "select b.id, b.name" + DUE + " order by b.uploaded_at, b.id")
                .setParameter(1, cutoff).setMaxResults(Math.max(1, config.maxDeletesPerSweep())).getResultList());
        int deleted = 0;
        for (Object[] row : doomed) {
            long id = ((Number) row[0]).longValue();
            try {
                if (bundles.delete(id)) {
                    crashes.removed(id);
                    audit.record(ACTOR, "retention.delete", "bundle " + id,
                            row[1] + " (uploaded before " + cutoff.truncatedTo(ChronoUnit.SECONDS) + ", kept " + days + " days)");
                    deleted++;
                }
            } catch (IOException | RuntimeException e) {
                LOG.warnf("retention: could not delete bundle %d: %s", id, e.toString());
            }
        }
        if (deleted > 0) {
            LOG.infof("retention: deleted %d bundle(s) uploaded before %s", deleted, cutoff);
        }
        return new SweepReport(deleted, cutoff);
    }
}
