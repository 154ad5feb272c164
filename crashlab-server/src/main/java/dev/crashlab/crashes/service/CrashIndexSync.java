package dev.crashlab.crashes.service;

import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.CrashChange;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.config.FirstInsert;
import dev.crashlab.crashes.ChangeCursor;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashSignature;
import io.quarkus.narayana.jta.QuarkusTransaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Keeps one server's on-disk past-crash index current from the database's change log ({@code crash_change}, V31).
 *
 * <p>NOTE: a change means "index this bundle as the database has it now" (or forget it when it is gone), so applying
 * one twice, or two out of order, ends in the same index. The {@link ChangeCursor}'s mark is committed with the index
 * (Lucene commit data), together with the database's origin token and the time of the commit: a restart reads
 * from the mark; an index from another database, or older than the log's retention, is built again instead.
 */
final class CrashIndexSync {

    private static final Logger LOG = Logger.getLogger(CrashIndexSync.class);
    static final String MARK = "crashlab.change-mark";
    static final String ORIGIN = "crashlab.origin";
    static final String SYNCED = "crashlab.synced-at";
    /** The {@link CrashSignature#VERSION} the index's signatures were made with. */
    static final String SIGNATURES = "crashlab.signature-version";
    /** Change rows read per query. */
    static final int BATCH = 1000;
    private static final long HOUSEKEEPING_MILLIS = 3_600_000;

    /** Builds an index entry from a bundle's row; null when it has no stored signature. */
    @FunctionalInterface
    interface Entries {
        CrashIndex.Entry entry(long id, String signatureJson, Instant uploadedAt, boolean confirmed);
    }

    private final CrashIndex index;
    private final CrashLabConfig.CrashIndexSettings settings;
    private final Entries entries;
    private final String origin;
    private ChangeCursor cursor;
    private long lastHousekeeping = System.currentTimeMillis();

    CrashIndexSync(CrashIndex index, CrashLabConfig.CrashIndexSettings settings, Entries entries) {
        this.index = index;
        this.settings = settings;
        this.entries = entries;
        this.origin = origin();
        Map<String, String> data = index.commitData();
        this.cursor = new ChangeCursor(parse(data.get(MARK)), settings.gapWait());
    }

    /**
     * Whether the index must be built from the database: new, from another database, older than the log keeps, or
     * holding signatures of another version of the rules.
     */
    boolean needsBuild() {
        Map<String, String> data = index.commitData();
        if (!origin.equals(data.get(ORIGIN)) || data.get(MARK) == null
                || !Integer.toString(CrashSignature.VERSION).equals(data.get(SIGNATURES))) {
            return true;
        }
        long synced = parse(data.get(SYNCED));
        return System.currentTimeMillis() - synced > settings.logRetention().toMillis();
    }

    /**
     * Where reading the log starts after a build that begins now: the newest change old enough that every
     * transaction numbered below it has committed (older than the gap wait). Later ones are applied again after
     * the build, which is harmless.
     */
    long buildMark() {
        Instant cutoff = Instant.now().minus(settings.gapWait());
        Long max = QuarkusTransaction.requiringNew().call(() -> CrashChange.getEntityManager()
                .createQuery("select max(c.id) from CrashChange c where c.changedAt < :cutoff", Long.class)
                .setParameter("cutoff", cutoff).getSingleResult());
        return max == null ? 0 : max;
    }

    /** The index was built from the database after {@link #buildMark()} gave {@code mark}: commits it so. */
    synchronized void built(long mark) {
        cursor = new ChangeCursor(mark, settings.gapWait());
        commit();
    }

    /** Reads the log until nothing new is left (at open). */
    void catchUp() {
        while (poll() >= BATCH) {
            // a long way behind: next batch
        }
    }

    /** The change id up to which the index is complete. */
    synchronized long mark() {
        return cursor.mark();
    }

    /** Applies the changes this index has not seen, oldest first, and commits; returns how many were applied. */
    synchronized int poll() {
        long after = cursor.highest();
        List<Long> gaps = cursor.gaps(BATCH);
        List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> {
            List<Object[]> out = new ArrayList<>(CrashChange.getEntityManager()
                    .createQuery("select c.id, c.bundleId from CrashChange c where c.id > :after order by c.id", Object[].class)
                    .setParameter("after", after).setMaxResults(BATCH).getResultList());
            if (!gaps.isEmpty()) { // transactions that took their number earlier and may have committed since
                out.addAll(CrashChange.getEntityManager()
                        .createQuery("select c.id, c.bundleId from CrashChange c where c.id in :gaps", Object[].class)
                        .setParameter("gaps", gaps).getResultList());
            }
            return out;
        });
        rows.sort(Comparator.comparingLong(r -> (Long) r[0]));
        Set<Long> bundles = new LinkedHashSet<>();
        List<Long> ids = new ArrayList<>();
        for (Object[] r : rows) {
            long id = (Long) r[0];
            if (cursor.pending(id)) {
                ids.add(id);
                bundles.add((Long) r[1]);
            }
        }
        if (!bundles.isEmpty()) {
            apply(new ArrayList<>(bundles));
        }
        ids.forEach(cursor::applied);
        boolean moved = cursor.advance(System.currentTimeMillis());
        if (!ids.isEmpty() || moved) {
            commit();
        }
        return ids.size();
    }

    // indexes each bundle as the database has it now; forgets the ones that are gone
    private void apply(List<Long> bundleIds) {
        Map<Long, CrashIndex.Entry> now = new HashMap<>();
        Set<Long> present = new java.util.HashSet<>();
        QuarkusTransaction.requiringNew().run(() -> {
            List<Object[]> rows = Bundle.getEntityManager().createQuery(
                    "select b.id, d.signatureJson, b.uploadedAt, r.bundleId from Bundle b"
                            + " left join BundleDiagnosis d on d.bundleId = b.id left join BundleResolution r on r.bundleId = b.id"
                            + " where b.id in :ids", Object[].class)
                    .setParameter("ids", bundleIds).getResultList();
            for (Object[] r : rows) {
                long id = (Long) r[0];
                present.add(id);
                CrashIndex.Entry e = entries.entry(id, (String) r[1], (Instant) r[2], r[3] != null);
                if (e != null) {
                    now.put(id, e);
                }
            }
        });
        for (long id : bundleIds) {
            CrashIndex.Entry e = now.get(id);
            if (e != null) {
                index.put(e);
            } else if (!present.contains(id)) {
                index.remove(id);
            } // present without a signature: not diagnosed (yet, or again); its next diagnosis writes a change
        }
    }

    /**
     * What a comparison of the index with the database found ({@link CrashIndex.Drift}), and whether the differing
     * bundles were indexed again as the database has them now.
     */
    record Drift(CrashIndex.Drift found, boolean repaired) {
        boolean clean() {
            return found.clean();
        }

        /** One line for the log. */
        String summary() {
            return found.summary() + (found.clean() ? "" : repaired ? " (repaired)" : " (not repaired)");
        }
    }

    /**
     * Compares the index with the database after applying the change log (so only what bypassed the log differs) and,
     * when {@code repair}, indexes the differing bundles as the database has them now; commits.
     */
    synchronized Drift verify(boolean repair) {
        catchUp();
        Map<Long, Long> database = new HashMap<>();
        long after = -1;
        while (true) {
            long from = after;
            List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager().createQuery(
                    "select b.id, d.signatureJson, b.uploadedAt, r.bundleId from Bundle b"
                            + " join BundleDiagnosis d on d.bundleId = b.id left join BundleResolution r on r.bundleId = b.id"
                            + " where b.id > :after order by b.id", Object[].class)
                    .setParameter("after", from).setMaxResults(BATCH * 10).getResultList());
            for (Object[] r : rows) {
                long id = (Long) r[0];
                Long fp = CrashIndex.fingerprint(id, (String) r[1], ((Instant) r[2]).toEpochMilli(), r[3] != null);
                if (fp != null) {
                    database.put(id, fp);
                }
                after = id;
            }
            if (rows.size() < BATCH * 10) {
                break;
            }
        }
        CrashIndex.Drift found = CrashIndex.compare(database, index.fingerprints());
        boolean fix = repair && !found.clean();
        if (fix) {
            List<Long> again = new ArrayList<>(found.missing());
            again.addAll(found.changed());
            if (!again.isEmpty()) {
                apply(again);
            }
            found.extra().forEach(index::remove); // gone, or without a signature: nothing of it belongs in the index
            commit();
        }
        return new Drift(found, fix);
    }

    /** Once an hour: refreshes the commit's time (an idle index is not stale) and prunes old change rows. */
    synchronized void housekeeping() {
        long now = System.currentTimeMillis();
        if (now - lastHousekeeping < HOUSEKEEPING_MILLIS) {
            return;
        }
        lastHousekeeping = now;
        commit();
        Instant cutoff = Instant.now().minus(settings.logRetention());
        long pruned = QuarkusTransaction.requiringNew().call(() -> CrashChange.delete("changedAt < ?1", cutoff));
        if (pruned > 0) {
            LOG.infof("past-crash index: pruned %d change-log row(s) older than %s", pruned, settings.logRetention());
        }
    }

    private void commit() {
        index.commit(Map.of(MARK, Long.toString(cursor.mark()), ORIGIN, origin,
                SYNCED, Long.toString(System.currentTimeMillis()), SIGNATURES, Integer.toString(CrashSignature.VERSION)));
    }

    // the database's origin token, written by the first server that asks (two asking at once: one insert wins, the
    // other's meets the key and it reads the winner's token)
    private static String origin() {
        String token = originToken();
        if (token != null) {
            return token;
        }
        String mine = UUID.randomUUID().toString();
        if (FirstInsert.ifAbsent(() -> CrashChange.getEntityManager()
                .createNativeQuery("insert into crash_index_origin (id, token) values (1, :t)")
                .setParameter("t", mine).executeUpdate())) {
            return mine;
        }
        token = originToken();
        if (token == null) {
            throw new IllegalStateException("crash_index_origin refused a first row, yet has none");
        }
        return token;
    }

    private static String originToken() {
        return QuarkusTransaction.requiringNew().call(() -> {
            @SuppressWarnings("unchecked")
            List<Object> t = CrashChange.getEntityManager()
                    .createNativeQuery("select token from crash_index_origin where id = 1").getResultList();
            return t.isEmpty() ? null : (String) t.getFirst();
        });
    }

    /** Deletes an index folder (its next opening builds it from the database). */
    static void wipe(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warnf("could not delete the past-crash index at %s: %s", dir, e.getMessage());
        }
    }

    private static long parse(String v) {
        try {
            return v == null ? 0 : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
