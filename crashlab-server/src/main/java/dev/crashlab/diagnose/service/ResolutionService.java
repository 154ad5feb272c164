package dev.crashlab.diagnose.service;

import dev.crashlab.kb.service.KnowledgeService;

import dev.crashlab.bundle.Bundle;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;

/**
 * The causes people confirm for their bundles. A confirmation changes the bundle's signature (its cause is the
 * confirmed one) and makes every stored diagnosis stale, since similar crashes count it as evidence.
 */
@ApplicationScoped
public class ResolutionService {

    @Inject
    DiagnosisService diagnoses;

    @Inject
    dev.crashlab.bundle.BundleService bundles;

    @Inject
    KnowledgeService knowledge;

    /** A confirmed cause as the API shows it. */
    public record Confirmed(String articleId, String title, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String note, Instant confirmedAt) {}

    /** A bundle's resolution: its confirmed cause, or null. */
    public record Resolution(long bundleId, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Confirmed confirmed) {}

    /** Why a confirmation was refused, in words for the user. */
    public static final class Refused extends RuntimeException {
        public Refused(String message) {
            super(message);
        }
    }

    /** A bundle confirmed as some cause, as the KB article page lists it. */
    public record ConfirmedBundle(long bundleId, String name, Instant uploadedAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String note, Instant confirmedAt) {}

    /** The bundles confirmed as one article, most recently confirmed first, and how many there are in all. */
    public record ConfirmedBundles(String articleId, long total, java.util.List<ConfirmedBundle> bundles) {}

    /** The bundles confirmed as {@code articleId} (at most {@code limit}); empty for an article the KB lacks. */
    public Optional<ConfirmedBundles> confirmedAs(String articleId, int limit) {
        if (knowledge.current().source().kb().article(articleId).isEmpty()) {
            return Optional.empty();
        }
        return QuarkusTransaction.requiringNew().call(() -> {
            long total = BundleResolution.count("articleId", articleId);
            java.util.List<Object[]> rows = Bundle.getEntityManager().createQuery(
                    "select b.id, b.name, b.uploadedAt, r.note, r.confirmedAt from BundleResolution r, Bundle b"
                            + " where b.id = r.bundleId and r.articleId = :a order by r.confirmedAt desc, b.id desc", Object[].class)
                    .setParameter("a", articleId).setMaxResults(limit).getResultList();
            java.util.List<ConfirmedBundle> out = rows.stream().map(r -> new ConfirmedBundle((Long) r[0], (String) r[1],
                    (Instant) r[2], (String) r[3], (Instant) r[4])).toList();
            return Optional.of(new ConfirmedBundles(articleId, total, out));
        });
    }

    /** The bundle's resolution; empty for an unknown bundle. */
    public Optional<Resolution> get(long bundleId) {
        return QuarkusTransaction.requiringNew().call(() -> {
            if (Bundle.findById(bundleId) == null) {
                return Optional.empty();
            }
            BundleResolution r = BundleResolution.findById(bundleId);
            return Optional.of(new Resolution(bundleId, r == null ? null : view(r)));
        });
    }

    /**
     * Confirms {@code articleId} as the bundle's cause (replacing an earlier confirmation); empty for an unknown
     * bundle.
     *
     * @throws Refused for an article the KB does not have, or a note over {@link BundleResolution#MAX_NOTE}
     */
    public Optional<Resolution> confirm(long bundleId, String articleId, String note) {
        if (articleId == null || articleId.isBlank()) {
            throw new Refused("name the KB article that was the cause as \"articleId\" (e.g. \"missing-zlibwapi\")");
        }
        if (knowledge.current().source().kb().article(articleId).isEmpty()) {
            throw new Refused("the knowledge base has no article '" + articleId + "' (GET /api/kb lists them)");
        }
        String n = note == null || note.isBlank() ? null : bundles.redactText(note.strip(), new java.util.TreeMap<>(), Integer.MAX_VALUE);
        if (n != null && n.length() > BundleResolution.MAX_NOTE) {
            // checked after redaction, which may lengthen it: what is stored must fit
            throw new Refused("the note is " + n.length() + " characters long; at most " + BundleResolution.MAX_NOTE + " fit");
        }
        Optional<Resolution> out = QuarkusTransaction.requiringNew().call(() -> {
            // the bundle's row lock puts two confirmations of one bundle in order (a double submit, two triagers, two
            // servers): the later finds the earlier's row and replaces it, where both used to find none and insert
            if (!bundles.lockRow(bundleId)) {
                return Optional.<Resolution>empty();
            }
            BundleResolution r = BundleResolution.findById(bundleId);
            if (r == null) {
                r = new BundleResolution();
                r.bundleId = bundleId;
                r.articleId = articleId;
                r.note = n;
                r.confirmedAt = Instant.now();
                r.persist();
            } else {
                r.articleId = articleId;
                r.note = n;
                r.confirmedAt = Instant.now();
            }
            return Optional.of(new Resolution(bundleId, view(r)));
        });
        out.ifPresent(r -> diagnoses.computeQuietly(bundleId)); // its signature now names the confirmed cause
        return out;
    }

    /** Takes a confirmation back; false for an unknown bundle. */
    public boolean clear(long bundleId) {
        boolean known = QuarkusTransaction.requiringNew().call(() -> {
            if (Bundle.findById(bundleId) == null) {
                return false;
            }
            BundleResolution.deleteById(bundleId);
            return true;
        });
        if (known) {
            diagnoses.computeQuietly(bundleId);
        }
        return known;
    }

    private Confirmed view(BundleResolution r) {
        String title = knowledge.current().source().kb().article(r.articleId).map(a -> a.title()).orElse(r.articleId);
        return new Confirmed(r.articleId, title, r.note, r.confirmedAt);
    }
}
