package dev.crashlab.crashes.service;

import dev.crashlab.diagnose.service.BundleDiagnosis;

import dev.crashlab.diagnose.service.BundleResolution;

import dev.crashlab.kb.service.KnowledgeService;

import dev.crashlab.diagnose.service.DiagnosisService;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.fact.Facts;
import dev.crashlab.reader.FactsJson;
import dev.crashlab.crashes.ConfirmedCrashes;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashFacets;
import dev.crashlab.crashes.CrashQuery;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.annotation.PreDestroy;
import dev.crashlab.diagnose.service.ConfirmedCrashLookup;
import dev.crashlab.diagnose.service.DiagnosisStored;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Past crashes: full-text search and similar crashes over every diagnosed bundle, from a {@link CrashIndex} kept on
 * disk ({@code crashlab.crash-index.dir}) and built from the signatures stored with the diagnoses.
 *
 * <p>NOTE: the index is opened on first use. An empty folder (a new server), one built from another database, or
 * one older than the change log's retention is built again from the database; bundles diagnosed before signatures
 * were stored are diagnosed again then, once. Several servers may share one database: every diagnosis stored and
 * every bundle deleted writes a {@code crash_change} row in the same transaction, and each server reads the rows
 * it has not applied every {@code poll-interval} ({@link CrashIndexSync}). This server's own changes are indexed at
 * once as well.
 */
@ApplicationScoped
public class CrashSearchService implements ConfirmedCrashLookup {

    private static final Logger LOG = Logger.getLogger(CrashSearchService.class);
    private static final int PAGE = 500;
    /**
     * The least similarity a listed similar crash has: below it the two share little more than an exception type
     * (a crash sharing only "OSError" with a 10-term signature is about 9% alike), which is noise on the report.
     */
    static final double MIN_LISTED = 0.15;

    @Inject
    DiagnosisService diagnoses;

    @Inject
    KnowledgeService knowledge;

    @Inject
    dev.crashlab.config.CrashLabConfig config;

    @Inject
    Event<SignatureStored> committed;

    private volatile CrashIndexSync sync;
    private java.util.concurrent.ScheduledExecutorService poller;


    private volatile CrashIndex index;
    private final Object buildLock = new Object();
    private volatile boolean building;
    // signatures stored while the index is being built; applied when it is done
    private final Map<Long, CrashIndex.Entry> pending = new ConcurrentHashMap<>();

    /** The cause someone confirmed for the bundle, or else its likely cause as its diagnosis ranked it. */
    public record LikelyCause(String id, String title, boolean confirmed, boolean weak) {

        /** A confirmed cause or a diagnosed one. */
        public LikelyCause(String id, String title, boolean confirmed) {
            this(id, title, confirmed, false);
        }
    }

    /**
     * A search hit with what the list shows of its bundle; snippets are HTML with {@code <mark>} around matches.
     *
     * @param group the bundle's group key (null when its crash has no specific term)
     * @param gpu the first GPU model its files name, or null
     * @param framework the first framework and version (e.g. {@code tensorflow 2.10}), or null
     */
    public record SearchHit(long bundleId, String name, Instant uploadedAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) LikelyCause likelyCause, double score,
                            List<String> snippets, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String group, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String gpu,
                            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String framework) {}

    /**
     * One page of search hits, with facet counts over all matches.
     *
     * @param facets by dimension (cause, gpu, driver, cuda, framework, os, exit): value, count and the clause a click adds
     * @param notes what the user should know about the query (a field that cannot match yet)
     */
    public record SearchPage(String query, long total, int offset, int limit, List<SearchHit> hits,
                             Map<String, List<CrashIndex.FacetValue>> facets, List<String> notes) {}

    /** A similar past crash, what it shares and how much of the bundle's signature that is. */
    public record SimilarCrash(long bundleId, String name, Instant uploadedAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) LikelyCause likelyCause, double similarity,
                               List<SignatureTerm> shared) {}

    /** The crashes most like one bundle, and the terms that bundle was compared on. */
    public record SimilarCrashes(long bundleId, List<SignatureTerm> signature, List<SimilarCrash> similar) {}

    /** How many values of each facet a search returns. */
    static final int FACET_VALUES = 8;

    /**
     * Searches past crashes with the query language ({@link CrashQuery}).
     *
     * @throws CrashQuery.Invalid for a query that does not parse, saying where
     */
    public SearchPage search(String q, int offset, int limit) {
        return search(q, null, offset, limit);
    }

    /**
     * {@link #search(String, int, int)} for a caller: {@code uploader:me} means the bundles {@code caller} uploaded.
     *
     * @param caller the caller's user name (as bundle ownership records it), or null
     */
    public SearchPage search(String q, String caller, int offset, int limit) {
        CrashQuery.Parsed parsed = parse(q, caller);
        CrashIndex i = index();
        CrashIndex.Result hits = i.query(parsed, offset, limit, FACET_VALUES);
        List<Long> ids = hits.hits().stream().map(CrashIndex.Hit::bundleId).toList();
        Map<Long, Bundle> rows = bundles(ids);
        Map<Long, BundleResolution> confirmed = resolutions(ids);
        List<SearchHit> out = new ArrayList<>();
        for (CrashIndex.Hit h : hits.hits()) {
            Bundle b = rows.get(h.bundleId());
            if (b == null) {
                i.remove(h.bundleId()); // deleted by another instance
                continue;
            }
            CrashSignature sig = i.signature(h.bundleId());
            out.add(new SearchHit(b.id, b.name, b.uploadedAt, cause(sig, confirmed.get(b.id)), h.score(), h.snippets(),
                    sig == null ? null : sig.groupKey(), first(sig, "gpu"), framework(sig)));
        }
        return new SearchPage(q, hits.total(), offset, limit, out, titled(hits.facets()), parsed.notes());
    }

    /** The most bundles an {@code uploader:} clause stands for (the newest uploads of that user). */
    static final int MAX_UPLOADER_BUNDLES = 100_000;

    /**
     * Parses a query and resolves its {@code uploader:} clauses to the bundles that user uploaded ({@code me}: the
     * caller; with no caller, {@code me} matches nothing).
     *
     * @throws CrashQuery.Invalid for a query that does not parse
     */
    public CrashQuery.Parsed parse(String q, String caller) {
        CrashQuery.Parsed parsed = CrashQuery.parse(q);
        return parsed.resolveUploaders(caller, name -> name.equalsIgnoreCase("me") ? List.of() : uploadedBy(name));
    }

    // the bundles a user uploaded, newest first (bundle_owner; a plain query keeps crashes free of the account package)
    private static List<Long> uploadedBy(String owner) {
        return QuarkusTransaction.joiningExisting().call(() -> {
            @SuppressWarnings("unchecked")
            List<Number> ids = Bundle.getEntityManager()
                    .createNativeQuery("select bundle_id from bundle_owner where owner = ?1 order by bundle_id desc")
                    .setParameter(1, owner).setMaxResults(MAX_UPLOADER_BUNDLES).getResultList();
            return ids.stream().map(Number::longValue).toList();
        });
    }

    /**
     * What the Bundles list shows of a diagnosed bundle beside its name.
     *
     * @param exception the first exception type or exit code its files name (for a default name), or null
     */
    public record RowFacts(LikelyCause likelyCause, String group, String gpu, String framework, String exception, String os) {}

    /**
     * The list's facts of these bundles, from their stored signatures (no index needed); bundles not yet diagnosed are
     * absent.
     */
    public Map<Long, RowFacts> rowFacts(List<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        return QuarkusTransaction.requiringNew().call(() -> {
            Map<Long, BundleResolution> confirmed = resolutions(ids);
            Map<Long, RowFacts> out = new HashMap<>();
            for (BundleDiagnosis d : BundleDiagnosis.<BundleDiagnosis>list("bundleId in ?1", ids)) {
                CrashSignature sig = fromJson(d.signatureJson).orElse(null);
                String exception = first(sig, "exception");
                if (exception == null) {
                    exception = sig == null ? null : sig.terms().stream().filter(t -> t.kind().equals("exit"))
                            .map(t -> "exit " + t.key().substring("exit:".length())).findFirst().orElse(null);
                }
                out.put(d.bundleId, new RowFacts(cause(sig, confirmed.get(d.bundleId)), sig == null ? null : sig.groupKey(),
                        first(sig, "gpu"), framework(sig), exception, facet(sig, "os")));
            }
            return out;
        });
    }

    /** The past-crash index (built on first use), for the groups and trends counted from it. */
    public CrashIndex indexForGroups() {
        return index();
    }

    /** The most rows an export holds. */
    public static final int MAX_EXPORT = 10_000;

    /** A search hit as exported: what the list shows and the setting it happened in. */
    public record ExportRow(long bundleId, String name, Instant uploadedAt, String causeId, String cause, boolean confirmed,
                            String group, String gpu, String framework, String driver, String cuda, String os, String exitCode) {}

    /**
     * Every hit of a search (at most {@link #MAX_EXPORT}), in the search's order.
     *
     * @throws CrashQuery.Invalid for a query that does not parse
     */
    public List<ExportRow> export(String q, int max) {
        return export(q, null, max);
    }

    /** {@link #export(String, int)} for a caller ({@code uploader:me}). */
    public List<ExportRow> export(String q, String caller, int max) {
        CrashQuery.Parsed parsed = parse(q, caller);
        CrashIndex i = index();
        List<Long> ids = i.query(parsed, 0, Math.min(max, MAX_EXPORT), 0, false).hits().stream().map(CrashIndex.Hit::bundleId).toList();
        List<ExportRow> out = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += PAGE) {
            List<Long> part = ids.subList(from, Math.min(ids.size(), from + PAGE));
            Map<Long, Bundle> rows = bundles(part);
            Map<Long, BundleResolution> confirmed = resolutions(part);
            for (long id : part) {
                Bundle b = rows.get(id);
                if (b == null) {
                    continue;
                }
                CrashSignature sig = i.signature(id);
                LikelyCause c = cause(sig, confirmed.get(id));
                out.add(new ExportRow(id, b.name, b.uploadedAt, c == null ? null : c.id(), c == null ? null : c.title(),
                        c != null && c.confirmed(), sig == null ? null : sig.groupKey(), first(sig, "gpu"), framework(sig),
                        facet(sig, "driver"), facet(sig, "cuda"), facet(sig, "os"), facet(sig, "exit")));
            }
        }
        return out;
    }

    private static String facet(CrashSignature s, String dim) {
        if (s == null) {
            return null;
        }
        String prefix = dim + "\0";
        return CrashFacets.values(s, false).stream().filter(v -> v.startsWith(prefix)).map(v -> v.substring(prefix.length()))
                .findFirst().orElse(null);
    }

    // the label of the signature's first term of this kind (a GPU's name as written)
    static String first(CrashSignature s, String kind) {
        return s == null ? null : s.terms().stream().filter(t -> t.kind().equals(kind)).map(SignatureTerm::label).findFirst().orElse(null);
    }

    static String framework(CrashSignature s) {
        if (s == null) {
            return null;
        }
        return CrashFacets.values(s, false).stream().filter(v -> v.startsWith("framework\0")).map(v -> v.substring(10))
                .findFirst().orElse(null);
    }

    // cause facet values keep their id (the filter) and read as the KB article's title
    private Map<String, List<CrashIndex.FacetValue>> titled(Map<String, List<CrashIndex.FacetValue>> facets) {
        Map<String, List<CrashIndex.FacetValue>> out = new java.util.LinkedHashMap<>(facets);
        out.computeIfPresent("cause", (k, values) -> values.stream().map(v -> new CrashIndex.FacetValue(causeTitle(v.value()),
                v.count(), v.filter())).toList());
        return out;
    }

    String causeTitle(String id) {
        return knowledge.current().source().kb().article(id).map(a -> a.title()).orElse(id);
    }

    /** The crashes most like a bundle; empty for an unknown bundle. */
    public Optional<SimilarCrashes> similar(long bundleId, int limit) {
        if (bundles(List.of(bundleId)).isEmpty()) {
            return Optional.empty();
        }
        CrashIndex i = index();
        if (!i.contains(bundleId)) {
            diagnoses.computeQuietly(bundleId); // stored and indexed through indexed()
        }
        CrashSignature mine = i.signature(bundleId);
        // most alike first, so dropping the faint ones from the top `limit` equals the top `limit` of the rest
        List<CrashIndex.Similar> similar = i.similar(bundleId, limit).stream()
                .filter(s -> s.similarity() >= MIN_LISTED).toList();
        List<Long> ids = similar.stream().map(CrashIndex.Similar::bundleId).toList();
        Map<Long, Bundle> rows = bundles(ids);
        Map<Long, BundleResolution> confirmed = resolutions(ids);
        List<SimilarCrash> out = new ArrayList<>();
        for (CrashIndex.Similar s : similar) {
            Bundle b = rows.get(s.bundleId());
            if (b == null) {
                i.remove(s.bundleId());
                continue;
            }
            out.add(new SimilarCrash(b.id, b.name, b.uploadedAt, cause(i.signature(s.bundleId()), confirmed.get(b.id)),
                    s.similarity(), s.shared()));
        }
        return Optional.of(new SimilarCrashes(bundleId, mine == null ? List.of() : mine.terms(), out));
    }

    /**
     * A bundle was diagnosed: its signature is derived and stored with the diagnosis, and a change-log row written, in
     * the storing transaction; the index learns it only once that transaction commits ({@link #onSignatureCommitted}),
     * so a rollback leaves the index as it was.
     */
    void onDiagnosisStored(@Observes DiagnosisStored d) {
        CrashSignature signature = CrashSignature.of(d.bundleName(), d.paths(), d.facts(), d.diagnosis(), d.confirmedId(),
                d.confirmedTitle());
        d.row().signatureJson = toJson(signature);
        dev.crashlab.bundle.CrashChange.record(d.bundleId(), dev.crashlab.bundle.CrashChange.UPSERT); // same transaction
        Bundle b = Bundle.findById(d.bundleId());
        committed.fire(new SignatureStored(new CrashIndex.Entry(d.bundleId(), signature,
                b == null ? 0 : b.uploadedAt.toEpochMilli(), d.confirmedId() != null)));
    }

    /** A signature stored in a transaction still open; indexed when (and only if) it commits. */
    record SignatureStored(CrashIndex.Entry entry) {}

    void onSignatureCommitted(@Observes(during = TransactionPhase.AFTER_SUCCESS) SignatureStored s) {
        indexed(s.entry());
    }

    private void indexed(CrashIndex.Entry e) {
        CrashIndex i = index;
        if (i != null) {
            i.put(e);
        } else if (building) {
            pending.put(e.bundleId(), e);
            CrashIndex done = index; // the build may have ended (and drained what was pending) meanwhile
            if (done != null) {
                drainPending(done);
            }
        }
    }

    // applies the entries stored while the index was being built; each one once, whoever drains it
    private void drainPending(CrashIndex i) {
        for (Long id : pending.keySet()) {
            CrashIndex.Entry e = pending.remove(id);
            if (e != null) {
                i.put(e);
            }
        }
    }

    /** A bundle was deleted. */
    public void removed(long bundleId) {
        pending.remove(bundleId);
        CrashIndex i = index;
        if (i != null) {
            i.remove(bundleId);
        }
    }

    /** Drops the index and its folder; the next search builds it again from the database. */
    void forget() {
        synchronized (buildLock) {
            stopPolling();
            CrashIndex i = index;
            index = null;
            sync = null;
            if (i != null) {
                try {
                    i.close();
                } catch (IOException | RuntimeException e) { // the folder is deleted next either way
                    LOG.debugf("closing the old past-crash index: %s", e.getMessage());
                }
            }
            CrashIndexSync.wipe(indexDir());
        }
    }

    /**
     * What comparing this server's index with the database found (see {@code CrashIndexSync.verify}).
     *
     * @param databaseCount bundles with a signature in the database
     * @param indexCount bundles in this server's index
     * @param databaseChecksum, indexChecksum order-free checksums of (bundle id, entry fingerprint); equal when they agree
     * @param missing, extra, changed the bundle ids that differ (at most 100 of each listed), with their counts
     * @param repaired whether the differing bundles were indexed again as the database has them
     */
    public record IndexDrift(long databaseCount, long indexCount, String databaseChecksum, String indexChecksum,
                             int missingCount, int extraCount, int changedCount, List<Long> missing, List<Long> extra,
                             List<Long> changed, boolean repaired, String summary) {}

    /** Compares this server's index with the database; {@code repair} indexes again what differs. */
    public IndexDrift verifyIndex(boolean repair) {
        index();
        CrashIndexSync s = sync;
        if (s == null) {
            throw new IllegalStateException("the past-crash index is not open");
        }
        CrashIndexSync.Drift d = s.verify(repair);
        CrashIndex.Drift f = d.found();
        return new IndexDrift(f.databaseCount(), f.indexCount(), f.databaseChecksum(), f.indexChecksum(), f.missing().size(),
                f.extra().size(), f.changed().size(), head(f.missing()), head(f.extra()), head(f.changed()), d.repaired(),
                d.summary());
    }

    private static List<Long> head(List<Long> ids) {
        return List.copyOf(ids.subList(0, Math.min(100, ids.size())));
    }

    /** Reads the change log now (tests; the poller does it every {@code poll-interval}); returns the changes applied. */
    int syncNow() {
        index();
        CrashIndexSync s = sync;
        return s == null ? 0 : s.poll();
    }

    /** The signature this server's index holds for a bundle, or null (tests). */
    CrashSignature indexedSignature(long bundleId) {
        return index().signature(bundleId);
    }

    /** The change-log id up to which this server's index is known complete. */
    long syncMark() {
        index();
        CrashIndexSync s = sync;
        return s == null ? 0 : s.mark();
    }

    java.nio.file.Path indexDir() {
        return config.crashIndex().dir().orElse(config.dataDir().resolve("crash-index")).toAbsolutePath().normalize();
    }

    private CrashIndex index() {
        CrashIndex i = index;
        if (i != null) {
            return i;
        }
        synchronized (buildLock) {
            if (index == null) {
                building = true;
                try {
                    CrashIndex opened = CrashIndex.open(indexDir());
                    CrashIndexSync s = new CrashIndexSync(opened, config.crashIndex(), this::entry);
                    try {
                        if (s.needsBuild()) {
                            opened.clear();
                            long mark = s.buildMark();
                            build(opened);
                            s.built(mark);
                        }
                        s.catchUp();
                    } catch (RuntimeException e) {
                        try {
                            opened.close();
                        } catch (IOException suppressed) {
                            e.addSuppressed(suppressed);
                        }
                        throw e;
                    }
                    index = opened;
                    sync = s;
                    drainPending(opened);
                    startPolling();
                } finally {
                    building = false;
                }
            }
            return index;
        }
    }

    private void startPolling() {
        long every = Math.max(50, config.crashIndex().pollInterval().toMillis());
        poller = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crashlab-crash-index-sync");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(() -> {
            CrashIndexSync s = sync;
            if (s == null) {
                return;
            }
            try {
                s.poll();
                s.housekeeping();
            } catch (RuntimeException e) {
                // the database may be briefly unreachable; the next poll tries again from the same mark
                LOG.warnf("past-crash index: reading the change log failed: %s", e.toString());
            }
        }, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        long verifyEvery = config.crashIndex().verifyInterval().toMillis();
        if (verifyEvery > 0) {
            poller.scheduleWithFixedDelay(() -> {
                CrashIndexSync s = sync;
                if (s == null) {
                    return;
                }
                try {
                    CrashIndexSync.Drift d = s.verify(true);
                    if (d.clean()) {
                        LOG.debugf("past-crash index agrees with the database: %s", d.summary());
                    } else {
                        LOG.warnf("past-crash index differed from the database (a change that bypassed the change log):"
                                + " %s; missing %s, extra %s, changed %s", d.summary(), head(d.found().missing()),
                                head(d.found().extra()), head(d.found().changed()));
                    }
                } catch (RuntimeException e) {
                    LOG.warnf("past-crash index: comparing it with the database failed: %s", e.toString());
                }
            }, verifyEvery, verifyEvery, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /*
     * Lets a poll under way finish, never interrupts it: an interrupt that lands while Lucene checks its write lock
     * (FileChannel.size() in a commit) closes the lock's channel, and the index can then be neither written nor
     * closed ("FileLock invalidated by an external force"). A periodic task does not run again after shutdown().
     */
    private void stopPolling() {
        if (poller != null) {
            poller.shutdown();
            try {
                if (!poller.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    LOG.warn("past-crash index: a read of the change log is still running after 60 s; not waiting for it");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            poller = null;
        }
    }

    // A bundle as the database has it now, as an index entry; null when it has no stored signature
    CrashIndex.Entry entry(long id, String signatureJson, Instant uploadedAt, boolean confirmed) {
        return fromJson(signatureJson).map(sig -> new CrashIndex.Entry(id, sig, uploadedAt.toEpochMilli(), confirmed)).orElse(null);
    }

    private void build(CrashIndex i) {
        long started = System.nanoTime();
        List<Long> missing = new ArrayList<>();
        long after = -1;
        while (true) {
            long from = after;
            List<Object[]> rows = QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager().createQuery(
                    "select b.id, d.signatureJson, b.uploadedAt, r.bundleId, b.status from Bundle b"
                            + " left join BundleDiagnosis d on d.bundleId = b.id left join BundleResolution r on r.bundleId = b.id"
                            + " where b.id > :after order by b.id", Object[].class)
                    .setParameter("after", from).setMaxResults(PAGE).getResultList());
            for (Object[] r : rows) {
                long id = (Long) r[0];
                Optional<CrashSignature> sig = fromJson((String) r[1]);
                if (sig.isPresent()) {
                    i.put(new CrashIndex.Entry(id, sig.get(), ((Instant) r[2]).toEpochMilli(), r[3] != null));
                } else if (r[4] != dev.crashlab.bundle.BundleStatus.PROCESSING) {
                    // (a bundle still being read, here or on another server, is diagnosed and logged when it is read)
                    missing.add(id);
                }
                after = id;
            }
            if (rows.size() < PAGE) {
                break;
            }
        }
        if (!missing.isEmpty()) {
            LOG.infof("past-crash index: diagnosing %d bundle(s) that have no stored signature of version " + CrashSignature.VERSION + " yet", missing.size());
            missing.forEach(diagnoses::computeQuietly); // each lands in pending through indexed()
        }
        LOG.infof("past-crash index: built from the database, %d bundle(s) in %d ms", i.size() + missing.size(),
                (System.nanoTime() - started) / 1_000_000);
    }

    private static Map<Long, Bundle> bundles(List<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        Map<Long, Bundle> out = new HashMap<>();
        QuarkusTransaction.joiningExisting().run(() -> {
            for (Bundle b : Bundle.<Bundle>list("id in ?1", ids)) {
                out.put(b.id, b);
            }
        });
        return out;
    }

    private LikelyCause cause(CrashSignature s, BundleResolution confirmed) {
        if (confirmed != null) {
            String title = knowledge.current().source().kb().article(confirmed.articleId).map(a -> a.title()).orElse(confirmed.articleId);
            return new LikelyCause(confirmed.articleId, title, true);
        }
        if (s == null) {
            return null;
        }
        boolean weak = s.terms().stream().anyMatch(t -> t.key().equals("verdict:weak"));
        return s.terms().stream().filter(t -> t.kind().equals("cause")).findFirst()
                .map(t -> new LikelyCause(t.key().substring("cause:".length()), t.label(), false, weak))
                .or(() -> s.terms().stream().filter(t -> t.kind().equals("guess")).findFirst() // a weak verdict's best guess
                        .map(t -> new LikelyCause(t.key().substring("guess:".length()), t.label(), false, true)))
                .orElse(null);
    }

    private static Map<Long, BundleResolution> resolutions(List<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        Map<Long, BundleResolution> out = new HashMap<>();
        QuarkusTransaction.joiningExisting().run(() -> {
            for (BundleResolution r : BundleResolution.<BundleResolution>list("bundleId in ?1", ids)) {
                out.put(r.bundleId, r);
            }
        });
        return out;
    }

    /**
     * The confirmed crashes most like a signature, as facts for the diagnosis of {@code bundleId}. Empty while the
     * index is being built by this very diagnosis (a bundle diagnosed then sees confirmations on its next
     * recomputation).
     */
    @Override
    public List<dev.crashlab.fact.Fact> confirmedLike(long bundleId, String bundleName, List<String> paths,
                                                      List<dev.crashlab.fact.Fact> facts) {
        CrashSignature signature = CrashSignature.of(bundleName, paths, facts, null);
        CrashIndex i = index;
        if (i == null) {
            if (building) {
                return List.of();
            }
            i = index();
        }
        List<CrashIndex.Similar> similar = i.similarTo(signature, bundleId, 50).stream()
                .filter(s -> s.similarity() >= ConfirmedCrashes.MIN_SIMILARITY).toList();
        List<Long> ids = similar.stream().map(CrashIndex.Similar::bundleId).toList();
        Map<Long, BundleResolution> confirmed = resolutions(ids);
        if (confirmed.isEmpty()) {
            return List.of();
        }
        Map<Long, Bundle> rows = bundles(ids);
        List<dev.crashlab.fact.Fact> out = new ArrayList<>();
        out.addAll(ConfirmedCrashes.of(similar,
                id -> rows.containsKey(id) ? rows.get(id).name : null,
                id -> confirmed.containsKey(id) ? confirmed.get(id).articleId : null));
        return out;
    }

    /** The signature as stored; its text is cut until the JSON fits the column. */
    static String toJson(CrashSignature s) {
        CrashSignature fit = s;
        try {
            String json = FactsJson.mapper().writeValueAsString(fit);
            while (json.length() > BundleDiagnosis.MAX_SIGNATURE) {
                String text = fit.text();
                fit = fit.with(text.isEmpty() ? fit.terms().subList(0, fit.terms().size() / 2) : fit.terms(),
                        text.substring(0, text.length() / 2));
                json = FactsJson.mapper().writeValueAsString(fit);
            }
            return json;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The stored signature; empty when there is none, it cannot be read, or an older version of the rules made it
     * (it is computed again: the index build diagnoses such bundles anew, which stores and logs the new signature).
     */
    static Optional<CrashSignature> fromJson(String json) {
        if (json == null || json.isBlank()) {
            return Optional.empty();
        }
        try {
            CrashSignature s = FactsJson.mapper().readValue(json, CrashSignature.class);
            return s.stale() ? Optional.empty() : Optional.of(s);
        } catch (IOException e) {
            LOG.warnf("a stored crash signature is not readable (%s); it is computed again", e.getMessage());
            return Optional.empty();
        }
    }

    /** Stops reading the change log before the database goes away, reads it once more and closes the index. */
    void onShutdown(@Observes io.quarkus.runtime.ShutdownEvent e) throws IOException {
        close();
    }

    @PreDestroy
    void close() throws IOException {
        synchronized (buildLock) {
            stopPolling();
            CrashIndexSync s = sync;
            if (s != null) {
                try {
                    s.poll(); // leaves the mark as far as it can go
                } catch (RuntimeException e) {
                    LOG.debugf("past-crash index: last read of the change log failed: %s", e.getMessage());
                }
            }
            CrashIndex i = index;
            index = null;
            sync = null;
            if (i != null) {
                i.close();
            }
        }
    }
}
