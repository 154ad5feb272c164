package dev.crashlab.bundle;

import dev.crashlab.metrics.Waits;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Which blobs are in use without a lock around uploads: an upload claims the hashes of its files before it stores a
 * byte, and a blob is deleted only when no artifact row and no live claim names it, decided and done under the row
 * of the hash's stripe (V48).
 *
 * <p>NOTE: the claim commits before the upload looks at the store, and the deletion re-checks under the stripe row,
 * which the claim also takes for a moment: either the deletion sees the claim (and keeps the blob), or it finished
 * before the claim committed (and the upload finds the blob gone and stores it again). Uploads on different servers
 * share no lock at all except a stripe row for the few milliseconds of a claim. A claim left by a server that died
 * mid-upload stops counting after {@link #STALE} and is pruned by the sweep.
 */
@ApplicationScoped
public class BlobClaims {

    /** A claim older than this belongs to an upload that will never commit (a server died); longer than any upload. */
    public static final Duration STALE = Duration.ofHours(6);

    @Inject
    BlobStore blobs;
    @Inject
    Waits waits;

    /** Claim rows written by one insert statement. */
    static final int ROWS_PER_INSERT = 500;

    /**
     * The timeout, in seconds, of a transaction that writes {@code rows} rows of one upload: the default minute, and a
     * second more per 25 rows (a zip of 9,000 files: 420 s), so that a large bundle on a busy database is stored
     * rather than rolled back half-way by the clock.
     */
    public static int timeoutSeconds(int rows) {
        return 60 + rows / 25;
    }

    /** The stripe row of a hash: its first two hex digits. */
    static int stripe(String sha256) {
        return Integer.parseInt(sha256.substring(0, 2), 16);
    }

    /**
     * Claims these hashes for a new upload, in a transaction of its own that commits before this returns; the
     * returned id releases them ({@link #releaseIn}, in the transaction that writes the artifact rows).
     */
    public String claim(Collection<String> hashes) {
        String upload = UUID.randomUUID().toString();
        TreeSet<String> sorted = new TreeSet<>(hashes);
        TreeSet<Integer> stripes = new TreeSet<>();
        sorted.forEach(h -> stripes.add(stripe(h)));
        QuarkusTransaction.requiringNew().timeout(timeoutSeconds(sorted.size())).run(() -> {
            EntityManager em = Bundle.getEntityManager();
            long t0 = System.nanoTime();
            for (int s : stripes) { // in order: two claims never deadlock
                em.createNativeQuery("select id from blob_stripe where id = ?1 for update").setParameter(1, s).getResultList();
            }
            waits.record(Waits.What.BLOB_GUARD, System.nanoTime() - t0);
            Instant now = Instant.now();
            // many rows per statement: a zip of 9,000 files made 9,000 round trips, which under load outlasted the
            // transaction's timeout and failed the upload
            java.util.List<String> all = java.util.List.copyOf(sorted);
            for (int from = 0; from < all.size(); from += ROWS_PER_INSERT) {
                java.util.List<String> chunk = all.subList(from, Math.min(all.size(), from + ROWS_PER_INSERT));
                StringBuilder sql = new StringBuilder("insert into blob_claim (upload, sha256, claimed_at) values ");
                for (int i = 0; i < chunk.size(); i++) {
                    sql.append(i == 0 ? "(?" : ", (?").append(3 * i + 1).append(", ?").append(3 * i + 2)
                            .append(", ?").append(3 * i + 3).append(')');
                }
                var insert = em.createNativeQuery(sql.toString());
                for (int i = 0; i < chunk.size(); i++) {
                    insert.setParameter(3 * i + 1, upload).setParameter(3 * i + 2, chunk.get(i)).setParameter(3 * i + 3, now);
                }
                insert.executeUpdate();
            }
        });
        return upload;
    }

    /** Drops an upload's claims inside the caller's transaction (the one that commits its artifact rows). */
    public void releaseIn(String upload) {
        Bundle.getEntityManager().createNativeQuery("delete from blob_claim where upload = ?1")
                .setParameter(1, upload).executeUpdate();
    }

    /** Drops an upload's claims in a transaction of their own (the upload failed). */
    public void release(String upload) {
        QuarkusTransaction.requiringNew().run(() -> releaseIn(upload));
    }

    /**
     * Deletes the blob if no artifact row and no live claim names it; returns whether it deleted it. Holds the hash's
     * stripe row while it checks and deletes, in a transaction of its own.
     */
    public boolean deleteIfUnused(String sha256) throws IOException {
        boolean[] deleted = new boolean[1];
        IOException[] failed = new IOException[1];
        QuarkusTransaction.requiringNew().run(() -> {
            EntityManager em = Bundle.getEntityManager();
            waits.time(Waits.What.BLOB_GUARD, () -> em.createNativeQuery("select id from blob_stripe where id = ?1 for update")
                    .setParameter(1, stripe(sha256)).getResultList());
            long rows = ((Number) em.createNativeQuery("select count(*) from artifact where sha256 = ?1")
                    .setParameter(1, sha256).getSingleResult()).longValue();
            long claims = ((Number) em.createNativeQuery("select count(*) from blob_claim where sha256 = ?1 and claimed_at > ?2")
                    .setParameter(1, sha256).setParameter(2, Instant.now().minus(STALE)).getSingleResult()).longValue();
            if (rows + claims > 0) {
                return;
            }
            try {
                deleted[0] = blobs.delete(sha256);
            } catch (IOException e) {
                failed[0] = e;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        return deleted[0];
    }

    /** Removes claims older than {@link #STALE} (their uploads died); returns how many. */
    public int pruneStale() {
        return QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager()
                .createNativeQuery("delete from blob_claim where claimed_at < ?1")
                .setParameter(1, Instant.now().minus(STALE)).executeUpdate());
    }
}
