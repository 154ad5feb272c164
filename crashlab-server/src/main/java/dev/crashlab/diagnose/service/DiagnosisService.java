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
     * @throws DomainException CONFLICT when nothing is stored yet: the bundle is still being read, or its reading failed
     */
    public Optional<DiagnosisView> diagnosis(long bundleId) {
        Optional<BundleView> found = bundles.find(bundleId);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        BundleView bundle = found.get();
        Served served = QuarkusTransaction.requiringNew().call(() -> {
            KnowledgeService.Loaded kb = knowledge.current();
            BundleDiagnosis row = BundleDiagnosis.findById(bundleId);
            String stamp = stamp(kb);
            if (row != null && (row.kbFingerprint.equals(stamp) || bundle.status() == BundleStatus.PROCESSING)) {
                return new Served(row.json, row.computedAt, false); // a bundle being read again keeps its last diagnosis meanwhile
            }
            if (bundle.status() == BundleStatus.PROCESSING || bundle.progress().readerVersion() == null) {
                throw notReadYet(bundle);
            }
            Computed c = compute(bundle, kb);
            if (bundles.tryLockRow(bundleId)) {
                row = store(bundleId, c, stamp, row);
                return new Served(row.json, row.computedAt, true);
            }
            // a writer holds the row (reading, diagnosing or deleting the bundle): serve this, unstored
            return new Served(json(bundleId, c), Instant.now(), true);
        });
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
     * Computes and stores the diagnosis of a new bundle in its own transaction; a failure (even at commit) is
     * logged and never fails the upload: the first read computes it again.
     */
    public void computeQuietly(long bundleId) {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                Optional<BundleView> bundle = bundles.find(bundleId);
                if (bundle.isPresent()) {
                    KnowledgeService.Loaded kb = knowledge.current();
                    Computed c = compute(bundle.get(), kb);
                    if (bundles.lockRow(bundleId)) { // else deleted meanwhile
                        store(bundleId, c, stamp(kb), BundleDiagnosis.findById(bundleId));
                    }
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf(e, "diagnosis of bundle %d failed; it will be computed when first read", bundleId);
        }
    }

    private Computed compute(BundleView bundle, KnowledgeService.Loaded kb) {
        // what reading the bundle once gave, stored at ingest: a diagnosis never reads the blobs
        BundleFacts read = storedFacts.find(bundle.id(), true).orElseThrow(() -> new DomainException(
                DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                "bundle " + bundle.id() + " has not been read yet; its diagnosis follows when it is"));
        List<Fact> facts = new ArrayList<>(read.facts());
        List<TextLine> lines = read.lines();
        facts.addAll(replayOutcomes(bundle.id()));
        List<Fact> deduped = Facts.dedupe(facts);
        List<String> paths = bundle.artifacts().stream().map(a -> a.path()).toList();
        // similar crashes whose cause someone confirmed are evidence too; compared on what this bundle itself says
        List<Fact> withConfirmed = new ArrayList<>(deduped);
        confirmedCrashes.forEach(c -> withConfirmed.addAll(c.confirmedLike(bundle.id(), bundle.name(), paths, deduped)));
        Diagnosis d = kb.engine().diagnose(new DiagnosisInput(withConfirmed, lines));
        BundleResolution resolution = BundleResolution.findById(bundle.id());
        String confirmedId = resolution == null ? null : resolution.articleId;
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
