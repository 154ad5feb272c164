package dev.crashlab.diagnose.service;


import dev.crashlab.kb.service.KnowledgeService;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.BundleStatus;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.DiagnosisDocument;
import dev.crashlab.diagnose.DiagnosisJson;
import dev.crashlab.reader.FactsJson;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.service.StoredFacts;
import dev.crashlab.domain.DomainException;
import dev.crashlab.repro.jobs.JobFinished;
import dev.crashlab.repro.jobs.ReproJob;
import dev.crashlab.repro.ReplayOutcomes;
import dev.crashlab.repro.ReproJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import io.quarkus.narayana.jta.QuarkusTransaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Computes a bundle's diagnosis from its stored facts (never the blobs), stores it with the KB fingerprint, and recomputes it
 * when the KB has changed since.
 */
@ApplicationScoped
public class DiagnosisService {

    private static final Logger LOG = Logger.getLogger(DiagnosisService.class);

    @Inject
    BundleService bundles;

    @Inject
    KnowledgeService knowledge;

    @Inject
    StoredFacts storedFacts;

    @Inject
    Instance<ConfirmedCrashLookup> confirmedCrashes;

    @Inject
    Event<DiagnosisStored> stored;

    /** A diagnosis and what it was computed from. */
    record Computed(Diagnosis diagnosis, String bundleName, List<String> paths, List<Fact> facts, String confirmedId,
                    String confirmedTitle) {}

    /**
     * The stored diagnosis as the API returns it, with the bundle's reading status and progress; empty for an unknown
     * bundle. Never waits for a writer: a bundle still being read answers at once (its earlier diagnosis if one is
     * stored, else {@code bundle-processing} with its progress), and a diagnosis recomputed here (missing, or stored
     * under another KB or confirmations) is stored only when the bundle's row is free, else served unstored.
     *
     * <p>NOTE: no transaction is open while the diagnosis is computed (see {@link #computeQuietly}): however long it
     * takes, no transaction timeout ends it, and storing it afterwards is a short transaction of its own; a failure to
     * store is logged and the diagnosis served unstored.
     *
     * @throws DomainException CONFLICT when nothing is stored yet: the bundle is still being read, or its reading failed
     */
    public Optional<DiagnosisView> diagnosis(long bundleId) {
        Optional<BundleView> found = bundles.find(bundleId);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        BundleView bundle = found.get();
        KnowledgeService.Loaded kb = knowledge.current();
        StoredRow stored = QuarkusTransaction.requiringNew().call(() -> {
            BundleDiagnosis row = BundleDiagnosis.findById(bundleId);
            return row == null ? new StoredRow(null, null, null, stamp(kb))
                    : new StoredRow(row.json, row.computedAt, row.kbFingerprint, stamp(kb));
        });
        Served served;
        if (stored.json() != null && (stored.stamp().equals(stored.fingerprint()) || bundle.status() == BundleStatus.PROCESSING)) {
            served = new Served(stored.json(), stored.computedAt(), false); // a bundle being read again keeps its last diagnosis meanwhile
        } else {
            if (bundle.status() == BundleStatus.PROCESSING || bundle.progress().readerVersion() == null) {
                throw notReadYet(bundle);
            }
            Inputs in = inputs(bundle, kb);
            Computed c = compute(bundle, kb, in); // no transaction open
            served = storeIfFree(bundleId, c, in.stamp()).orElseGet(() -> new Served(json(bundleId, c), Instant.now(), true));
        }
        DiagnosisDocument doc;
        try {
            doc = FactsJson.mapper().readValue(served.json(), DiagnosisDocument.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored diagnosis of bundle " + bundleId + " is not JSON", e);
        }
        return Optional.of(DiagnosisView.of(bundle, served.computedAt(), served.recomputed(), doc));
    }

    /** A diagnosis's JSON as served, when it was computed, and whether this request computed it. */
    private record Served(String json, Instant computedAt, boolean recomputed) {}

    /** The stored diagnosis (its fields null when there is none) and the stamp a current one carries. */
    private record StoredRow(String json, Instant computedAt, String fingerprint, String stamp) {}

    /**
     * Stores a diagnosis the request computed, in a short transaction, if no writer holds the bundle's row and the
     * bundle is not being read again meanwhile (its reading then stores its own); empty when it was not stored.
     */
    private Optional<Served> storeIfFree(long bundleId, Computed c, String stamp) {
        try {
            return QuarkusTransaction.requiringNew().call(() -> {
                if (!bundles.tryLockRow(bundleId)) {
                    return Optional.<Served>empty(); // a writer holds the row (reading, diagnosing or deleting the bundle)
                }
                if (bundles.find(bundleId).map(b -> b.status() == BundleStatus.PROCESSING).orElse(true)) {
                    return Optional.<Served>empty(); // deleted, or being read again: its reading stores its own
                }
                BundleDiagnosis row = store(bundleId, c, stamp, BundleDiagnosis.findById(bundleId));
                return Optional.of(new Served(row.json, row.computedAt, true));
            });
        } catch (RuntimeException e) {
            LOG.warnf(e, "storing the diagnosis of bundle %d failed; served unstored, computed again on the next read", bundleId);
            return Optional.empty();
        }
    }

    /** Why a bundle with no reading stored has no diagnosis yet, with its progress; said at once, never waited out. */
    static DomainException notReadYet(BundleView b) {
        if (b.status() == BundleStatus.FAILED) {
            return new DomainException(DomainException.Kind.CONFLICT, "bundle-read-failed", "Reading the bundle failed",
                    b.readError() + ". Read it again from its page (POST /api/bundles/" + b.id() + "/read) once the cause is fixed");
        }
        return new DomainException(DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                "CrashLab is still reading bundle " + b.id() + " (" + b.progress().artifactsRead() + " of "
                        + b.progress().artifacts() + " files so far); its diagnosis follows when it is done", 1);
    }

    /**
     * Computes and stores the diagnosis of a bundle; a failure (even at commit) is logged and never fails the caller
     * (an upload's reading, a confirmation): the first read computes it again. Three steps: its inputs are read in a
     * short transaction, the diagnosis is computed with no transaction open (so no transaction timeout bounds it), and
     * it is stored in another short transaction that locks the bundle's row first (a delete meanwhile: nothing stored);
     * the past crashes index it once that one commits ({@link DiagnosisStored}).
     */
    public void computeQuietly(long bundleId) {
        try {
            Optional<BundleView> bundle = bundles.find(bundleId);
            if (bundle.isEmpty()) {
                return;
            }
            KnowledgeService.Loaded kb = knowledge.current();
            Inputs in = inputs(bundle.get(), kb);
            Computed c = compute(bundle.get(), kb, in);
            QuarkusTransaction.requiringNew().run(() -> {
                if (bundles.lockRow(bundleId)) { // else deleted meanwhile
                    store(bundleId, c, in.stamp(), BundleDiagnosis.findById(bundleId));
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf(e, "diagnosis of bundle %d failed; it will be computed when first read", bundleId);
        }
    }

    /**
     * What a diagnosis is computed from, besides the KB: the stamp it will be stored under (read first, so that a
     * confirmation made meanwhile leaves it stale rather than hidden), the stored reading, the finished replays as facts
     * and the confirmed cause.
     */
    private record Inputs(String stamp, BundleFacts read, List<Fact> replays, String confirmedId) {}

    private Inputs inputs(BundleView bundle, KnowledgeService.Loaded kb) {
        return QuarkusTransaction.requiringNew().call(() -> {
            String stamp = stamp(kb);
            // what reading the bundle once gave, stored at ingest: a diagnosis never reads the blobs
            BundleFacts read = storedFacts.find(bundle.id(), true).orElseThrow(() -> new DomainException(
                    DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                    "bundle " + bundle.id() + " has not been read yet; its diagnosis follows when it is"));
            BundleResolution resolution = BundleResolution.findById(bundle.id());
            return new Inputs(stamp, read, replayOutcomes(bundle.id()), resolution == null ? null : resolution.articleId);
        });
    }

    // no transaction needed: the past crashes' lookup opens its own short ones
    private Computed compute(BundleView bundle, KnowledgeService.Loaded kb, Inputs in) {
        List<Fact> facts = new ArrayList<>(in.read().facts());
        List<TextLine> lines = in.read().lines();
        facts.addAll(in.replays());
        List<Fact> deduped = Facts.dedupe(facts);
        List<String> paths = bundle.artifacts().stream().map(a -> a.path()).toList();
        // similar crashes whose cause someone confirmed are evidence too; compared on what this bundle itself says
        List<Fact> withConfirmed = new ArrayList<>(deduped);
        confirmedCrashes.forEach(c -> withConfirmed.addAll(c.confirmedLike(bundle.id(), bundle.name(), paths, deduped)));
        Diagnosis d = kb.engine().diagnose(new DiagnosisInput(withConfirmed, lines));
        String confirmedId = in.confirmedId();
        String confirmedTitle = confirmedId == null ? null
                : kb.source().kb().article(confirmedId).map(a -> a.title()).orElse(confirmedId);
        return new Computed(d, bundle.name(), paths, deduped, confirmedId, confirmedTitle);
    }

    /**
     * What a stored diagnosis depends on besides the bundle: the KB and compat data (their fingerprint) and the
     * confirmed causes (their count and latest change). A row stored under another stamp is recomputed on read.
     */
    static String stamp(KnowledgeService.Loaded kb) {
        Object[] r = (Object[]) BundleResolution.getEntityManager()
                .createQuery("select count(r), max(r.confirmedAt) from BundleResolution r").getSingleResult();
        // e.g. "d12ccd753429eafe+3@2026-11-22T11:32:18.174194562Z": at most 16+1+19+1+30 characters, within the column's 64
        return kb.source().kb().fingerprint() + "+" + r[0] + "@" + (r[1] == null ? "none" : r[1]);
    }

    /** The finished reproduction jobs of the bundle, as facts: a replay is evidence too. */
    private static List<Fact> replayOutcomes(long bundleId) {
        List<Fact> out = new ArrayList<>();
        List<ReproJob> jobs = ReproJob.list("bundleId = ?1 and finishedAt is not null order by id", bundleId);
        for (ReproJob job : jobs) {
            if (job.resultJson == null || job.state == null || !job.state.isFinal()) {
                continue;
            }
            try {
                ReplayOutcomes.of(job.id, job.state.wire(), ReproJson.readJobResult(job.resultJson)).ifPresent(out::add);
            } catch (IllegalArgumentException e) {
                LOG.warnf("repro job %d has a result that does not read (%s); left out of the diagnosis", job.id, e.getMessage());
            }
        }
        return out;
    }

    /** A replay of the bundle finished: forgets its stored diagnosis, so that the next read computes it with the outcome. */
    void onJobFinished(@Observes JobFinished finished) {
        BundleDiagnosis.deleteById(finished.bundleId());
    }

    private static String json(long bundleId, Computed c) {
        String json;
        try {
            json = FactsJson.mapper().writeValueAsString(DiagnosisJson.toJson(c.diagnosis())); // the stored form: compact
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        if (json.length() > BundleDiagnosis.MAX_JSON) {
            throw new IllegalStateException("diagnosis of bundle " + bundleId + " is " + json.length() + " characters, over the column's size");
        }
        return json;
    }

    private BundleDiagnosis store(long bundleId, Computed c, String fingerprint, BundleDiagnosis existing) {
        String json = json(bundleId, c);
        BundleDiagnosis row = existing != null ? existing : new BundleDiagnosis();
        row.bundleId = bundleId;
        row.kbFingerprint = fingerprint;
        row.computedAt = Instant.now();
        row.json = json;
        stored.fire(new DiagnosisStored(bundleId, c.bundleName(), c.paths(), c.facts(), c.diagnosis(), c.confirmedId(),
                c.confirmedTitle(), row)); // the past crashes set row.signatureJson and index it
        if (existing == null) {
            row.persist();
        }
        return row;
    }
}
