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
        QuarkusTransaction.requiringNew().run(() -> {
            EntityManager em = Bundle.getEntityManager();
            long t0 = System.nanoTime();
            for (int s : stripes) { // in order: two claims never deadlock
                em.createNativeQuery("select id from blob_stripe where id = ?1 for update").setParameter(1, s).getResultList();
            }
            waits.record(Waits.What.BLOB_GUARD, System.nanoTime() - t0);
            Instant now = Instant.now();
            for (String h : sorted) {
                em.createNativeQuery("insert into blob_claim (upload, sha256, claimed_at) values (?1, ?2, ?3)")
                        .setParameter(1, upload).setParameter(2, h).setParameter(3, now).executeUpdate();
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
