package dev.crashlab.crashes;

import dev.crashlab.search.LogAnalyzer;
import dev.crashlab.search.Snippets;

import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.WildcardQuery;

/**
 * Past crashes, in memory or on disk: full-text search over what each bundle's facts say (with highlighted snippets) and
 * "similar crashes", ranked by the {@link SignatureTerm}s two bundles share, rare ones counting more.
 *
 * <p>NOTE: derived data. The database holds the signatures; this index is built from them and updated as
 * bundles are diagnosed or deleted. On disk ({@link #open(Path)}, an {@link MMapDirectory}) it outlives the process:
 * each document stores its signature as JSON, read back into memory on open, and {@link #commit(Map)} makes the
 * writes durable together with the caller's bookkeeping (how far it has read the change log). Thread-safe: writes go through one {@link IndexWriter}, searches through a
 * {@link SearcherManager} refreshed after each write.
 *
 * <p>Similarity: each signature term is one untokenised {@code sig} value. Lucene finds the bundles sharing a
 * specific term, those sharing the most idf weight first (a few hundred, more only when the bound in
 * {@link #similarTo(CrashSignature, long, int, int)} asks for them; at most {@link #MAX_CANDIDATES}), and the share of
 * the idf-weighted terms they share ranks them, in (0, 1]: 1 means every term is shared, and rare terms weigh more than common
 * ones. Writes mark the searcher stale; the next search refreshes it once, and every search sees the writes made
 * before it began.
 */
public final class CrashIndex implements Closeable {

    /**
     * A bundle as indexed.
     *
     * @param uploadedAt epoch milliseconds
     * @param confirmed whether someone confirmed its cause
     */
    public record Entry(long bundleId, CrashSignature signature, long uploadedAt, boolean confirmed) {
        public Entry(long bundleId, CrashSignature signature) {
            this(bundleId, signature, 0, false);
        }
    }

    /** A search hit: the bundle, Lucene's score and up to two passages with the query's words in {@code <mark>}. */
    public record Hit(long bundleId, double score, List<String> snippets) {
        public Hit {
            snippets = List.copyOf(snippets);
        }
    }

    /** A page of search hits and how many bundles matched in all. */
    public record Hits(long total, List<Hit> hits) {
        public Hits {
            hits = List.copyOf(hits);
        }
    }

    /**
     * A similar bundle.
     *
     * @param similarity how alike the two are, in (0, 1], the same either way round ({@link CrashIndex#similarity})
     * @param shared the shared terms, specific ones first (labels as the first bundle says them)
     */
    public record Similar(long bundleId, double similarity, List<SignatureTerm> shared) {
        public Similar {
            shared = List.copyOf(shared);
        }
    }

    private static final int MAX_QUERY_TERMS = 32;
    private static final Set<String> TEXT_ONLY = Set.of("text");
    /** The most bundles a similar-crash query scores (those sharing the most weight first). */
    static final int MAX_CANDIDATES = 10_000;

    private final Analyzer analyzer = new LogAnalyzer();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    // the signatures, with their keys as a set, by bundle id: what similarity is computed from
    // sorted: the keys in the order similarity sums their weights (the same order whichever side asks)
    // ids: the term ids of the sorted keys ({@link #termIds}), what the similar-crash loop compares
    private record Indexed(CrashSignature signature, String[] sorted, int[] ids) {}

    // every signature key ever indexed, numbered (never shrinks: a key's number stays while the process lives)
    private final Map<String, Integer> termIds = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger nextTermId = new java.util.concurrent.atomic.AtomicInteger();

    private final Map<Long, Indexed> signatures = new ConcurrentHashMap<>();
    // writes so far, and how many of them the current searcher is known to see: a search that finds the searcher
    // behind refreshes it first (one refresh per burst of writes). NOTE: not a "dirty" flag cleared by whoever
    // refreshes: a second search arriving while that refresh runs would then take the old searcher and miss writes
    // made before it began (a new server's first search right after its build found nothing).
    private final java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
    // the most writes a search may miss rather than wait for another thread's refresh (then under way) to show them
    private static final long FEW_WRITES = 64;

    private final Directory directory;

    /** An index in memory (the CLI, tests). */
    public CrashIndex() {
        this(new ByteBuffersDirectory());
    }

    private CrashIndex(Directory directory) {
        this.directory = directory;
        try {
            IndexWriterConfig config = new IndexWriterConfig(new LogAnalyzer());
            config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
            writer = new IndexWriter(directory, config);
            searchers = new SearcherManager(writer, null);
            load();
        } catch (IOException e) {
            try {
                directory.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens (creating if needed) the index kept in the folder {@code dir}, memory-mapped. One process at a time: a
     * second opener fails on Lucene's write lock.
     */
    public static CrashIndex open(java.nio.file.Path dir) {
        try {
            java.nio.file.Files.createDirectories(dir);
            return new CrashIndex(new MMapDirectory(dir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the past-crash index at " + dir, e);
        }
    }

    // reads the stored signatures back (an index opened from disk)
    private void load() throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
                org.apache.lucene.index.StoredFields fields = leaf.reader().storedFields();
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                    if (live != null && !live.get(doc)) {
                        continue;
                    }
                    Document d = fields.document(doc, Set.of("id", "sigjson"));
                    CrashSignature sig = dev.crashlab.fact.Facts.json().readValue(d.get("sigjson"), CrashSignature.class);
                    signatures.put(Long.parseLong(d.get("id")), indexed(sig));
                }
            }
        } finally {
            searchers.release(s);
        }
    }

    /**
     * Makes every write so far durable, with {@code data} (the caller's bookkeeping) stored in the same commit; it
     * reads back through {@link #commitData()}.
     */
    public void commit(Map<String, String> data) {
        try {
            writer.setLiveCommitData(Map.copyOf(data).entrySet());
            writer.commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The data of the last {@link #commit(Map)} (empty for a new index). */
    public Map<String, String> commitData() {
        Map<String, String> out = new java.util.HashMap<>();
        Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
        if (live != null) {
            live.forEach(e -> out.put(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** Forgets every bundle (before a rebuild). */
    public void clear() {
        try {
            writer.deleteAll();
            signatures.clear();
            written.incrementAndGet();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Indexed indexed(CrashSignature signature) {
        String[] sorted = signature.terms().stream().map(SignatureTerm::key).distinct().sorted().toArray(String[]::new);
        int[] ids = new int[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            ids[i] = termIds.computeIfAbsent(sorted[i], k -> nextTermId.getAndIncrement());
        }
        return new Indexed(signature, sorted, ids);
    }

    /** Adds or replaces a bundle. */
    public void put(Entry e) {
        write(e);
        written.incrementAndGet();
    }

    /**
     * Adds or replaces many bundles (a rebuild, a bulk load): the same documents as {@link #put} one by one, built and
     * written by {@code threads} threads at once (Lucene's writer takes documents from several threads), with a larger
     * in-memory buffer while it runs so that fewer, larger segments are flushed. The searcher sees them all at the next
     * search. An entry's bundle id must not repeat within the batch (which of two would win is not defined).
     */
    public void putAll(List<Entry> entries, int threads) {
        int n = Math.max(1, Math.min(threads, entries.size()));
        org.apache.lucene.index.LiveIndexWriterConfig config = writer.getConfig();
        double buffer = config.getRAMBufferSizeMB();
        config.setRAMBufferSizeMB(Math.max(buffer, BULK_BUFFER_MB));
        try {
            if (n == 1) {
                entries.forEach(this::write);
                return;
            }
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            java.util.concurrent.atomic.AtomicReference<RuntimeException> failed = new java.util.concurrent.atomic.AtomicReference<>();
            for (int t = 0; t < n; t++) {
                workers.add(Thread.ofPlatform().name("crash-index-bulk-" + t).start(() -> {
                    try {
                        // in chunks, so each thread writes runs of neighbouring entries (ids close together)
                        for (int from = next.getAndAdd(BULK_CHUNK); from < entries.size() && failed.get() == null;
                                from = next.getAndAdd(BULK_CHUNK)) {
                            for (Entry e : entries.subList(from, Math.min(entries.size(), from + BULK_CHUNK))) {
                                write(e);
                            }
                        }
                    } catch (RuntimeException ex) {
                        failed.compareAndSet(null, ex);
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            if (failed.get() != null) {
                throw failed.get();
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing the past-crash index", ex);
        } finally {
            config.setRAMBufferSizeMB(buffer);
            written.incrementAndGet();
        }
    }

    /** The in-memory buffer of a bulk write, MiB (Lucene's default is 16): bounded, so a bulk load fits the server's heap. */
    private static final double BULK_BUFFER_MB = 128;
    private static final int BULK_CHUNK = 256;

    // one entry's document, written (what put and putAll share); the caller counts the write
    private void write(Entry e) {
        Document d = new Document();
        d.add(new StringField("id", Long.toString(e.bundleId()), Field.Store.YES));
        d.add(new NumericDocValuesField("idv", e.bundleId()));
        StringBuilder text = new StringBuilder();
        for (SignatureTerm t : e.signature().terms()) {
            d.add(new StringField("sig", t.key(), Field.Store.NO));
            text.append(t.label()).append("\n\n");
        }
        text.append(e.signature().text());
        d.add(new LongPoint("uploaded", e.uploadedAt()));
        d.add(new NumericDocValuesField("uploadedv", e.uploadedAt()));
        d.add(new StringField("confirmed", e.confirmed() ? "yes" : "no", Field.Store.NO));
        String group = e.signature().groupKey();
        if (group != null) {
            d.add(new StringField("group", group, Field.Store.NO));
        }
        for (String v : CrashFacets.values(e.signature(), e.confirmed())) {
            d.add(new SortedSetDocValuesField("facet", new BytesRef(v)));
        }
        for (SignatureTerm t : e.signature().terms()) {
            String kind = t.kind();
            if (CrashSignature.VERSIONED.contains(kind)) {
                Long v = CrashQuery.versionNumber(t.key().substring(kind.length() + 1));
                if (v != null) {
                    d.add(new LongPoint("v:" + kind, v));
                }
            }
        }
        d.add(new TextField("text", text.toString(), Field.Store.NO));
        d.add(new StoredField("text", text.toString()));
        try {
            String json = dev.crashlab.fact.Facts.json().writeValueAsString(e.signature());
            d.add(new StoredField("sigjson", json));
            d.add(new NumericDocValuesField("fpv", fingerprint(json, e.uploadedAt(), e.confirmed())));
            writer.updateDocument(new Term("id", Long.toString(e.bundleId())), d);
            signatures.put(e.bundleId(), indexed(e.signature()));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A 64-bit fingerprint of what an entry puts in the index (its signature as stored, its upload time, whether its
     * cause is confirmed): the same entry gives the same number in every process, so an index can be compared with the
     * database ({@link #fingerprints()}).
     */
    public static long fingerprint(Entry e) {
        try {
            return fingerprint(dev.crashlab.fact.Facts.json().writeValueAsString(e.signature()), e.uploadedAt(), e.confirmed());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static long fingerprint(String signatureJson, long uploadedAt, boolean confirmed) {
        java.security.MessageDigest md;
        try {
            md = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every JDK has SHA-256", ex);
        }
        md.update(signatureJson.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        md.update((" " + uploadedAt + " " + confirmed).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.nio.ByteBuffer.wrap(md.digest()).getLong();
    }

    /**
     * The fingerprint of a bundle as a database row has it (its stored signature, upload time, confirmed cause), or
     * null when the row puts nothing in the index (no signature, one of an older version, or unreadable).
     */
    public static Long fingerprint(long bundleId, String signatureJson, long uploadedAt, boolean confirmed) {
        if (signatureJson == null || signatureJson.isBlank()) {
            return null;
        }
        try {
            CrashSignature sig = dev.crashlab.fact.Facts.json().readValue(signatureJson, CrashSignature.class);
            return sig.stale() ? null : fingerprint(new Entry(bundleId, sig, uploadedAt, confirmed));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What comparing an index with the database found: how many bundles each side holds, an order-free checksum of
     * (bundle id, fingerprint) on each side (equal when they agree), and the bundles that differ.
     *
     * @param missing bundles the database has an entry for and the index lacks
     * @param extra bundles the index holds and the database has no entry for (no row, or no signature)
     * @param changed bundles on both sides whose entries differ
     */
    public record Drift(long databaseCount, long indexCount, String databaseChecksum, String indexChecksum, List<Long> missing,
                        List<Long> extra, List<Long> changed) {
        public boolean clean() {
            return missing.isEmpty() && extra.isEmpty() && changed.isEmpty();
        }

        /** One line for a log or a terminal. */
        public String summary() {
            return String.format("database %d bundle(s), checksum %s; index %d, checksum %s; %d missing, %d extra, %d changed",
                    databaseCount, databaseChecksum, indexCount, indexChecksum, missing.size(), extra.size(), changed.size());
        }
    }

    /** Compares fingerprints by bundle id: the database's ({@link #fingerprint(long, String, long, boolean)}) and an index's. */
    public static Drift compare(Map<Long, Long> database, Map<Long, Long> indexed) {
        List<Long> missing = new ArrayList<>();
        List<Long> changed = new ArrayList<>();
        List<Long> extra = new ArrayList<>();
        database.forEach((id, fp) -> {
            Long mine = indexed.get(id);
            if (mine == null) {
                missing.add(id);
            } else if (mine.longValue() != fp.longValue()) {
                changed.add(id);
            }
        });
        indexed.keySet().forEach(id -> {
            if (!database.containsKey(id)) {
                extra.add(id);
            }
        });
        missing.sort(null);
        changed.sort(null);
        extra.sort(null);
        return new Drift(database.size(), indexed.size(), checksum(database), checksum(indexed), List.copyOf(missing),
                List.copyOf(extra), List.copyOf(changed));
    }

    // order-free: a sum of mixed (id, fingerprint) pairs
    static String checksum(Map<Long, Long> entries) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : entries.entrySet()) {
            long x = e.getKey() * 0x9E3779B97F4A7C15L ^ e.getValue();
            x ^= x >>> 33;
            x *= 0xff51afd7ed558ccdL;
            x ^= x >>> 33;
            sum += x;
        }
        return String.format("%016x", sum);
    }

    /**
     * The fingerprints of the index last committed in the folder {@code dir}, read without opening it for writing (a
     * server may hold it meanwhile); empty when there is none.
     */
    public static Map<Long, Long> committedFingerprints(java.nio.file.Path dir) throws IOException {
        if (!java.nio.file.Files.isDirectory(dir)) {
            return Map.of();
        }
        try (Directory d = org.apache.lucene.store.FSDirectory.open(dir)) {
            if (!org.apache.lucene.index.DirectoryReader.indexExists(d)) {
                return Map.of();
            }
            try (org.apache.lucene.index.DirectoryReader r = org.apache.lucene.index.DirectoryReader.open(d)) {
                return fingerprints(r);
            }
        }
    }

    /**
     * Every indexed bundle with the fingerprint of its entry ({@link #fingerprint(Entry)}), as of every write so far; 0
     * for an entry written before fingerprints were kept.
     */
    public Map<Long, Long> fingerprints() {
        IndexSearcher s = acquire();
        try {
            return fingerprints(s.getIndexReader());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    private static Map<Long, Long> fingerprints(org.apache.lucene.index.IndexReader reader) throws IOException {
        {
            Map<Long, Long> out = new java.util.HashMap<>();
            for (LeafReaderContext leaf : reader.leaves()) {
                org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
                org.apache.lucene.index.NumericDocValues ids = org.apache.lucene.index.DocValues.getNumeric(leaf.reader(), "idv");
                org.apache.lucene.index.NumericDocValues fps = org.apache.lucene.index.DocValues.getNumeric(leaf.reader(), "fpv");
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                    if (live != null && !live.get(doc) || !ids.advanceExact(doc)) {
                        continue;
                    }
                    out.put(ids.longValue(), fps.advanceExact(doc) ? fps.longValue() : 0L);
                }
            }
            return out;
        }
    }

    /** Forgets a bundle (deleted). */
    public void remove(long bundleId) {
        try {
            writer.deleteDocuments(new Term("id", Long.toString(bundleId)));
            signatures.remove(bundleId);
            written.incrementAndGet();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bundle's signature as indexed, or null. */
    public CrashSignature signature(long bundleId) {
        Indexed i = signatures.get(bundleId);
        return i == null ? null : i.signature();
    }

    /** Whether the bundle is indexed. */
    public boolean contains(long bundleId) {
        return signatures.containsKey(bundleId);
    }

    /** How many bundles are indexed. */
    public int size() {
        return signatures.size();
    }

    /**
     * The bundles whose text has every word of the query, best first: one page of {@code limit} from
     * {@code offset}. A word matches as written or as part of a compound ({@code cudart} finds
     * {@code cudart64_110.dll}).
     */
    public Hits search(String q, int offset, int limit) {
        QueryTerms terms = terms(q == null ? "" : q);
        if (terms.words().isEmpty()) {
            return new Hits(0, List.of());
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        terms.words().forEach(t -> b.add(new TermQuery(new Term("text", t)), BooleanClause.Occur.MUST));
        IndexSearcher s = acquire();
        try {
            TopDocs top = s.search(b.build(), offset + limit);
            List<Hit> hits = new ArrayList<>();
            ScoreDoc[] docs = top.scoreDocs;
            long[] ids = idsInOrder(s, docs);
            for (int i = offset; i < docs.length; i++) {
                Document d = s.storedFields().document(docs[i].doc, TEXT_ONLY); // not the signature's JSON beside it
                List<String> snippets = Snippets.best(Snippets.passages(analyzer, d.get("text"), terms.words()), terms.words(), 2);
                hits.add(new Hit(ids[i], docs[i].score, snippets));
            }
            return new Hits(top.totalHits.value(), hits);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    /** A facet value: how many matching bundles have it and the clause a click adds to the query. */
    public record FacetValue(String value, long count, String filter) {}

    /**
     * A page of a query's hits, how many matched, and the facet counts over all of them.
     *
     * @param facets by dimension ({@link CrashFacets#DIMENSIONS}), most frequent values first
     */
    public record Result(long total, List<Hit> hits, Map<String, List<FacetValue>> facets) {
        public Result {
            hits = List.copyOf(hits);
        }
    }

    /** What a scan sees of each matching bundle. */
    @FunctionalInterface
    public interface DocVisitor {
        /** @param facets the bundle's facet values, {@code dim\0value} */
        void visit(long bundleId, long uploadedAt, List<String> facets);
    }

    /**
     * Runs a parsed query: one page of hits (best text match first, then newest; newest first when the query has no
     * free words) and, when {@code facetValues > 0}, that many values per facet dimension counted over all matches.
     */
    public Result query(CrashQuery.Parsed q, int offset, int limit, int facetValues) {
        return query(q, offset, limit, facetValues, true);
    }

    /** {@link #query(CrashQuery.Parsed, int, int, int)}, with snippets only when {@code snippets} is true. */
    public Result query(CrashQuery.Parsed q, int offset, int limit, int facetValues, boolean snippets) {
        Compiled c = compile(q);
        IndexSearcher s = acquire();
        try {
            Sort sort = c.scored() ? new Sort(SortField.FIELD_SCORE, new SortField("uploadedv", SortField.Type.LONG, true))
                    : new Sort(new SortField("uploadedv", SortField.Type.LONG, true), new SortField("idv", SortField.Type.LONG, true));
            TopDocs top = s.search(c.query(), Math.max(1, offset + limit), sort, c.scored());
            List<Hit> hits = new ArrayList<>();
            ScoreDoc[] docs = top.scoreDocs;
            long[] ids = idsInOrder(s, docs);
            for (int i = offset; i < docs.length && hits.size() < limit; i++) {
                List<String> marked = List.of();
                if (snippets && !c.words().isEmpty()) {
                    Document d = s.storedFields().document(docs[i].doc, TEXT_ONLY); // not the signature's JSON beside it
                    marked = Snippets.best(Snippets.passages(analyzer, d.get("text"), c.words()), c.words(), 2);
                }
                hits.add(new Hit(ids[i], Float.isNaN(docs[i].score) ? 0 : docs[i].score, marked));
            }
            Map<String, List<FacetValue>> facets = facetValues > 0 ? facets(counts(s, c.query()), facetValues) : Map.of();
            return new Result(top.totalHits.value(), hits, facets);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    /** The facet counts ({@code dim\0value} to count) of the bundles a query matches, or of all when it is null. */
    public Map<String, Long> counts(CrashQuery.Parsed q) {
        IndexSearcher s = acquire();
        try {
            return counts(s, q == null ? new MatchAllDocsQuery() : compile(q).query());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    /** Facet counts as the API shows them: {@code top} values per dimension, most frequent first. */
    public static Map<String, List<FacetValue>> facets(Map<String, Long> counts, int top) {
        Map<String, List<FacetValue>> out = new java.util.LinkedHashMap<>();
        for (String dim : CrashFacets.DIMENSIONS) {
            out.put(dim, new ArrayList<>());
        }
        counts.forEach((k, n) -> {
            int sep = k.indexOf(CrashFacets.SEP);
            List<FacetValue> values = out.get(k.substring(0, sep));
            if (values != null) {
                String v = k.substring(sep + 1);
                values.add(new FacetValue(v, n, CrashFacets.filter(k.substring(0, sep), v)));
            }
        });
        out.replaceAll((dim, values) -> values.stream()
                .sorted(Comparator.comparingLong(FacetValue::count).reversed().thenComparing(FacetValue::value)).limit(top).toList());
        return out;
    }

    /** Visits every bundle a query matches (all when {@code q} is null), in index order. */
    public void scan(CrashQuery.Parsed q, DocVisitor visitor) {
        IndexSearcher s = acquire();
        try {
            Query query = q == null ? new MatchAllDocsQuery() : compile(q).query();
            Weight w = s.createWeight(s.rewrite(query), org.apache.lucene.search.ScoreMode.COMPLETE_NO_SCORES, 1);
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                org.apache.lucene.search.Scorer scorer = w.scorer(leaf);
                if (scorer == null) {
                    continue;
                }
                NumericDocValues ids = DocValues.getNumeric(leaf.reader(), "idv");
                NumericDocValues uploaded = DocValues.getNumeric(leaf.reader(), "uploadedv");
                SortedSetDocValues facets = DocValues.getSortedSet(leaf.reader(), "facet");
                String[] strings = leafFacets(leaf).values();
                org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
                org.apache.lucene.search.DocIdSetIterator it = scorer.iterator();
                for (int doc = it.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
                    if (live != null && !live.get(doc)) {
                        continue;
                    }
                    long id = ids.advanceExact(doc) ? ids.longValue() : -1;
                    long at = uploaded.advanceExact(doc) ? uploaded.longValue() : 0;
                    List<String> values = new ArrayList<>();
                    if (facets.advanceExact(doc)) {
                        for (int i = 0; i < facets.docValueCount(); i++) {
                            values.add(strings[(int) facets.nextOrd()]);
                        }
                    }
                    visitor.visit(id, at, values);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    // Counts facet values over the matches: per leaf by ordinal, resolved to strings through the leaf's cached table.
    // Every bundle (a MatchAllDocsQuery): each segment's counts are kept while the segment lives, less its deleted
    // documents, so the request costs the number of segments times the values, not the number of bundles.
    private Map<String, Long> counts(IndexSearcher s, Query query) throws IOException {
        String group = groupOf(query);
        if (group != null) { // one group's bundles: their counts are in the segments' group summaries
            Map<String, Long> total = new java.util.HashMap<>();
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                LeafGroups lg = leafGroups(leaf);
                LeafGroup g = lg.byKey().get(group);
                if (g != null) {
                    for (int i = 0; i < g.facetOrds().length; i++) {
                        total.merge(lg.values()[g.facetOrds()[i]], g.facetCounts()[i], Long::sum);
                    }
                }
            }
            return total;
        }
        Map<String, Long> total = new java.util.HashMap<>();
        boolean all = query instanceof MatchAllDocsQuery;
        Weight w = all ? null : s.createWeight(s.rewrite(query), org.apache.lucene.search.ScoreMode.COMPLETE_NO_SCORES, 1);
        for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
            LeafFacets lf = leafFacets(leaf);
            long[] counts;
            if (all) {
                counts = lf.live(leaf);
            } else {
                org.apache.lucene.search.Scorer scorer = w.scorer(leaf);
                if (scorer == null) {
                    continue;
                }
                SortedSetDocValues facets = DocValues.getSortedSet(leaf.reader(), "facet");
                counts = new long[lf.values().length];
                org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
                org.apache.lucene.search.DocIdSetIterator it = scorer.iterator();
                for (int doc = it.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
                    if ((live == null || live.get(doc)) && facets.advanceExact(doc)) {
                        for (int i = 0; i < facets.docValueCount(); i++) {
                            counts[(int) facets.nextOrd()]++;
                        }
                    }
                }
            }
            String[] values = lf.values();
            for (int ord = 0; ord < counts.length; ord++) {
                if (counts[ord] > 0) {
                    total.merge(values[ord], counts[ord], Long::sum);
                }
            }
        }
        return total;
    }

    /**
     * What one segment's facet field holds, computed once per segment: its values by ordinal (so a scan never looks an
     * ordinal up per document) and the count of each over every document of the segment, deleted ones included.
     * Segments never change; only their deletions do, and {@link #live} takes those off per reader (cached too).
     */
    private static final class LeafFacets {
        private final String[] values;
        private final long[] everyDoc;
        // the counts less the deleted documents, for the one set of deletions last asked about (one volatile pair)
        private record Live(Object key, long[] counts) {}

        private volatile Live last;

        LeafFacets(String[] values, long[] everyDoc) {
            this.values = values;
            this.everyDoc = everyDoc;
        }

        String[] values() {
            return values;
        }

        long[] live(LeafReaderContext leaf) throws IOException {
            org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
            if (live == null) {
                return everyDoc;
            }
            org.apache.lucene.index.IndexReader.CacheHelper helper = leaf.reader().getReaderCacheHelper();
            Object key = helper == null ? null : helper.getKey();
            Live cached = last;
            if (key != null && cached != null && cached.key() == key) {
                return cached.counts();
            }
            long[] counts = everyDoc.clone();
            SortedSetDocValues facets = DocValues.getSortedSet(leaf.reader(), "facet");
            for (int doc = 0; doc < live.length(); doc++) {
                if (!live.get(doc) && facets.advanceExact(doc)) {
                    for (int i = 0; i < facets.docValueCount(); i++) {
                        counts[(int) facets.nextOrd()]--;
                    }
                }
            }
            if (key != null) {
                last = new Live(key, counts);
            }
            return counts;
        }
    }

    // by segment (the core cache key: the same while the segment lives, whatever is deleted from it); a closed segment
    // (merged away) leaves the map through its close listener
    private final Map<Object, LeafFacets> leafFacets = new ConcurrentHashMap<>();

    private LeafFacets leafFacets(LeafReaderContext leaf) throws IOException {
        org.apache.lucene.index.IndexReader.CacheHelper core = leaf.reader().getCoreCacheHelper();
        if (core == null) {
            return computeLeafFacets(leaf);
        }
        LeafFacets lf = leafFacets.get(core.getKey());
        if (lf == null) {
            lf = computeLeafFacets(leaf);
            if (leafFacets.putIfAbsent(core.getKey(), lf) == null) {
                core.addClosedListener(leafFacets::remove);
            }
        }
        return lf;
    }

    private static LeafFacets computeLeafFacets(LeafReaderContext leaf) throws IOException {
        SortedSetDocValues facets = DocValues.getSortedSet(leaf.reader(), "facet");
        String[] values = new String[(int) Math.min(Integer.MAX_VALUE - 8, facets.getValueCount())];
        org.apache.lucene.index.TermsEnum te = facets.termsEnum();
        for (int ord = 0; ord < values.length && te.next() != null; ord++) {
            values[ord] = te.term().utf8ToString();
        }
        long[] counts = new long[values.length];
        for (int doc = facets.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = facets.nextDoc()) {
            for (int i = 0; i < facets.docValueCount(); i++) {
                counts[(int) facets.nextOrd()]++;
            }
        }
        return new LeafFacets(values, counts);
    }

    /**
     * One crash group's numbers over its bundles as the index holds them now, from summaries kept per segment.
     *
     * @param newest the bundle id of the newest crash (of several equally new ones, the first in index order)
     * @param causes each bundle's likely or confirmed cause (the last of its cause values), by cause id
     * @param days crashes per UTC day, by epoch day
     * @param facets the facet counts over the group's bundles ({@code dim\0value}), what {@link #counts} gives for
     *        {@code group:KEY}
     */
    public record GroupStats(String key, long count, long firstSeen, long lastSeen, long newest, long confirmed,
                             Map<String, CauseCount> causes, java.util.SortedMap<Long, Long> days, Map<String, Long> facets) {}

    /** How many of a group's bundles have a cause, and how many of those had it confirmed. */
    public record CauseCount(long bundles, long confirmed) {}

    /**
     * A group's numbers ({@link GroupStats}), or null when no bundle has that group. Costs the number of segments
     * times the group's distinct values, not its bundles: each segment's summary is computed once per set of
     * deletions (so it stays right after deletes, updates and rebuilds, which all make new segments or deletions).
     */
    public GroupStats group(String key) {
        IndexSearcher s = acquire();
        try {
            GroupMerge m = new GroupMerge(key);
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                LeafGroups lg = leafGroups(leaf);
                LeafGroup g = lg.byKey().get(key);
                if (g != null) {
                    m.add(g, lg.values(), true);
                }
            }
            return m.count == 0 ? null : m.stats(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    /** Every group's numbers ({@link GroupStats}, without their facet counts: empty maps), in no particular order. */
    public List<GroupStats> groups() {
        IndexSearcher s = acquire();
        try {
            Map<String, GroupMerge> merged = new java.util.LinkedHashMap<>();
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                LeafGroups lg = leafGroups(leaf);
                lg.byKey().forEach((key, g) -> merged.computeIfAbsent(key, GroupMerge::new).add(g, lg.values(), false));
            }
            return merged.values().stream().map(m -> m.stats(false)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    // A group's numbers in one segment (its live documents): ordinals are the segment's facet ordinals.
    private record LeafGroup(long count, long first, long last, long newest, long confirmed, int[] causeOrds, long[] causeCounts,
                             long[] causeConfirmed, long[] days, long[] dayCounts, int[] facetOrds, long[] facetCounts) {}

    private record LeafGroups(String[] values, Map<String, LeafGroup> byKey) {}

    // the groups of a segment in index order, merged: leaves come in index order, so the first newest bundle wins
    private static final class GroupMerge {
        final String key;
        long count;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long newest = -1;
        long confirmed;
        final Map<String, long[]> causes = new java.util.HashMap<>();
        final java.util.TreeMap<Long, Long> days = new java.util.TreeMap<>();
        final Map<String, Long> facets = new java.util.HashMap<>();

        GroupMerge(String key) {
            this.key = key;
        }

        void add(LeafGroup g, String[] values, boolean withFacets) {
            count += g.count();
            first = Math.min(first, g.first());
            if (g.last() > last) {
                last = g.last();
                newest = g.newest();
            }
            confirmed += g.confirmed();
            for (int i = 0; i < g.causeOrds().length; i++) {
                long[] c = causes.computeIfAbsent(values[g.causeOrds()[i]].substring(6), x -> new long[2]);
                c[0] += g.causeCounts()[i];
                c[1] += g.causeConfirmed()[i];
            }
            for (int i = 0; i < g.days().length; i++) {
                days.merge(g.days()[i], g.dayCounts()[i], Long::sum);
            }
            if (withFacets) {
                for (int i = 0; i < g.facetOrds().length; i++) {
                    facets.merge(values[g.facetOrds()[i]], g.facetCounts()[i], Long::sum);
                }
            }
        }

        GroupStats stats(boolean withFacets) {
            Map<String, CauseCount> cs = new java.util.HashMap<>();
            causes.forEach((k, c) -> cs.put(k, new CauseCount(c[0], c[1])));
            return new GroupStats(key, count, first, last, newest, confirmed, Map.copyOf(cs), java.util.Collections.unmodifiableSortedMap(days),
                    withFacets ? Map.copyOf(facets) : Map.of());
        }
    }

    // by segment and its deletions (the reader cache key); a reader closed (its segment merged away, or new deletions
    // read) leaves the map through its close listener
    private final Map<Object, LeafGroups> leafGroups = new ConcurrentHashMap<>();

    private LeafGroups leafGroups(LeafReaderContext leaf) throws IOException {
        org.apache.lucene.index.IndexReader.CacheHelper helper = leaf.reader().getReaderCacheHelper();
        if (helper == null) {
            return computeLeafGroups(leaf, leafFacets(leaf).values());
        }
        LeafGroups lg = leafGroups.get(helper.getKey());
        if (lg == null) {
            lg = computeLeafGroups(leaf, leafFacets(leaf).values());
            if (leafGroups.putIfAbsent(helper.getKey(), lg) == null) {
                helper.addClosedListener(leafGroups::remove);
            }
        }
        return lg;
    }

    // Two passes over the segment's live documents: one to find each group's documents, then one per group (in doc
    // order) counting into scratch arrays indexed by ordinal, kept sparse.
    private static LeafGroups computeLeafGroups(LeafReaderContext leaf, String[] values) throws IOException {
        String groupPrefix = CrashFacets.GROUP + SEP_STRING;
        int confirmedYes = -1;
        boolean[] isCause = new boolean[values.length];
        int[] groupIndex = new int[values.length];
        Arrays.fill(groupIndex, -1);
        List<Integer> groupOrds = new ArrayList<>();
        for (int ord = 0; ord < values.length; ord++) {
            if (values[ord].startsWith(groupPrefix)) {
                groupIndex[ord] = groupOrds.size();
                groupOrds.add(ord);
            } else if (values[ord].startsWith("cause" + SEP_STRING)) {
                isCause[ord] = true;
            } else if (values[ord].equals("confirmed" + SEP_STRING + "yes")) {
                confirmedYes = ord;
            }
        }
        if (groupOrds.isEmpty()) {
            return new LeafGroups(values, Map.of());
        }
        org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
        int[][] docs = new int[groupOrds.size()][];
        int[] sizes = new int[groupOrds.size()];
        SortedSetDocValues facets = DocValues.getSortedSet(leaf.reader(), "facet");
        for (int doc = facets.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = facets.nextDoc()) {
            if (live != null && !live.get(doc)) {
                continue;
            }
            for (int i = 0; i < facets.docValueCount(); i++) {
                int gi = groupIndex[(int) facets.nextOrd()];
                if (gi >= 0) {
                    if (docs[gi] == null) {
                        docs[gi] = new int[16];
                    } else if (sizes[gi] == docs[gi].length) {
                        docs[gi] = Arrays.copyOf(docs[gi], docs[gi].length * 2);
                    }
                    docs[gi][sizes[gi]++] = doc;
                    break; // a bundle has one group
                }
            }
        }
        long[] facetScratch = new long[values.length];
        long[] causeScratch = new long[values.length];
        long[] causeConfirmedScratch = new long[values.length];
        // in the order of each group's first bundle, as a scan meets them
        Integer[] order = new Integer[groupOrds.size()];
        for (int gi = 0; gi < order.length; gi++) {
            order[gi] = gi;
        }
        Arrays.sort(order, Comparator.comparingInt(gi -> sizes[gi] == 0 ? Integer.MAX_VALUE : docs[gi][0]));
        Map<String, LeafGroup> byKey = new java.util.LinkedHashMap<>();
        for (int gi : order) {
            if (sizes[gi] == 0) {
                continue;
            }
            SortedSetDocValues f = DocValues.getSortedSet(leaf.reader(), "facet");
            NumericDocValues ids = DocValues.getNumeric(leaf.reader(), "idv");
            NumericDocValues uploaded = DocValues.getNumeric(leaf.reader(), "uploadedv");
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            long newest = -1;
            long confirmed = 0;
            long[] dayOf = new long[sizes[gi]];
            java.util.BitSet touched = new java.util.BitSet(values.length);
            java.util.BitSet causes = new java.util.BitSet(values.length);
            for (int k = 0; k < sizes[gi]; k++) {
                int doc = docs[gi][k];
                long at = uploaded.advanceExact(doc) ? uploaded.longValue() : 0;
                long id = ids.advanceExact(doc) ? ids.longValue() : -1;
                first = Math.min(first, at);
                if (at > last) {
                    last = at;
                    newest = id;
                }
                dayOf[k] = Math.floorDiv(at, 86_400_000L);
                int cause = -1;
                boolean yes = false;
                if (f.advanceExact(doc)) {
                    for (int i = 0; i < f.docValueCount(); i++) {
                        int ord = (int) f.nextOrd();
                        facetScratch[ord]++;
                        touched.set(ord);
                        if (isCause[ord]) {
                            cause = ord; // the last, as a scan in ordinal order takes it
                        } else if (ord == confirmedYes) {
                            yes = true;
                        }
                    }
                }
                if (yes) {
                    confirmed++;
                }
                if (cause >= 0) {
                    causeScratch[cause]++;
                    causeConfirmedScratch[cause] += yes ? 1 : 0;
                    causes.set(cause);
                }
            }
            int[] facetOrds = touched.stream().toArray();
            long[] facetCounts = new long[facetOrds.length];
            for (int i = 0; i < facetOrds.length; i++) {
                facetCounts[i] = facetScratch[facetOrds[i]];
                facetScratch[facetOrds[i]] = 0;
            }
            int[] causeOrds = causes.stream().toArray();
            long[] causeCounts = new long[causeOrds.length];
            long[] causeConfirmed = new long[causeOrds.length];
            for (int i = 0; i < causeOrds.length; i++) {
                causeCounts[i] = causeScratch[causeOrds[i]];
                causeConfirmed[i] = causeConfirmedScratch[causeOrds[i]];
                causeScratch[causeOrds[i]] = 0;
                causeConfirmedScratch[causeOrds[i]] = 0;
            }
            Arrays.sort(dayOf);
            int distinct = 0;
            for (int k = 0; k < dayOf.length; k++) {
                if (k == 0 || dayOf[k] != dayOf[k - 1]) {
                    distinct++;
                }
            }
            long[] days = new long[distinct];
            long[] dayCounts = new long[distinct];
            int d = -1;
            for (int k = 0; k < dayOf.length; k++) {
                if (k == 0 || dayOf[k] != dayOf[k - 1]) {
                    days[++d] = dayOf[k];
                }
                dayCounts[d]++;
            }
            byKey.put(values[groupOrds.get(gi)].substring(groupPrefix.length()), new LeafGroup(sizes[gi], first, last, newest, confirmed,
                    causeOrds, causeCounts, causeConfirmed, days, dayCounts, facetOrds, facetCounts));
        }
        return new LeafGroups(values, java.util.Collections.unmodifiableMap(byKey));
    }

    private static final String SEP_STRING = String.valueOf(CrashFacets.SEP);

    // the key of a query that is exactly one group's bundles (group:KEY, as compiled by match), or null
    private static String groupOf(Query query) {
        if (query instanceof BooleanQuery b && b.clauses().size() == 1 && (b.clauses().getFirst().occur() == BooleanClause.Occur.FILTER
                || b.clauses().getFirst().occur() == BooleanClause.Occur.MUST)) {
            return groupOf(b.clauses().getFirst().query());
        }
        return query instanceof ConstantScoreQuery c && c.getQuery() instanceof TermQuery t && t.getTerm().field().equals("group")
                ? t.getTerm().text() : null;
    }

    /** A query compiled for Lucene: whether it has scored free words, and those words for the snippets. */
    private record Compiled(Query query, boolean scored, Set<String> words) {}

    private Compiled compile(CrashQuery.Parsed q) {
        Set<String> words = new LinkedHashSet<>();
        Query query = compile(q.root(), words, false);
        return new Compiled(query == null ? new MatchNoDocsQuery() : query, !words.isEmpty(), words);
    }

    // null: the node constrains nothing (free words the analyser drops entirely)
    private Query compile(CrashQuery.Node node, Set<String> words, boolean negated) {
        return switch (node) {
            case CrashQuery.Words w -> {
                Set<String> ws = terms(w.text()).words();
                if (ws.isEmpty()) {
                    yield null;
                }
                if (!negated) {
                    words.addAll(ws);
                }
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                ws.forEach(t -> b.add(new TermQuery(new Term("text", t)), BooleanClause.Occur.MUST));
                yield ws.size() == 1 ? new TermQuery(new Term("text", ws.iterator().next())) : b.build();
            }
            case CrashQuery.Match m -> match(m);
            case CrashQuery.Bundles ids -> new ConstantScoreQuery(new org.apache.lucene.search.TermInSetQuery("id",
                    ids.ids().stream().map(id -> new BytesRef(Long.toString(id))).toList()));
            case CrashQuery.Not n -> {
                Query inner = compile(n.node(), words, !negated);
                yield inner == null ? null : new BooleanQuery.Builder().add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER)
                        .add(inner, BooleanClause.Occur.MUST_NOT).build();
            }
            case CrashQuery.And a -> {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                boolean positive = false;
                boolean any = false;
                for (CrashQuery.Node child : a.nodes()) {
                    if (child instanceof CrashQuery.Not n) {
                        Query inner = compile(n.node(), words, !negated);
                        if (inner != null) {
                            b.add(inner, BooleanClause.Occur.MUST_NOT);
                            any = true;
                        }
                        continue;
                    }
                    Query q = compile(child, words, negated);
                    if (q != null) {
                        b.add(q, child instanceof CrashQuery.Words || child instanceof CrashQuery.Or || child instanceof CrashQuery.And
                                ? BooleanClause.Occur.MUST : BooleanClause.Occur.FILTER);
                        positive = true;
                        any = true;
                    }
                }
                if (!any) {
                    yield null;
                }
                if (!positive) {
                    b.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER);
                }
                yield b.build();
            }
            case CrashQuery.Or o -> {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                int n = 0;
                for (CrashQuery.Node child : o.nodes()) {
                    Query q = compile(child, words, negated);
                    if (q != null) {
                        b.add(q, BooleanClause.Occur.SHOULD);
                        n++;
                    }
                }
                yield n == 0 ? null : b.setMinimumNumberShouldMatch(1).build();
            }
        };
    }

    private static Query match(CrashQuery.Match m) {
        return switch (m.field().kind()) {
            case TERM -> {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                for (String kind : m.field().reads()) {
                    String key = kind + ":" + m.value();
                    if (m.value().contains("*")) {
                        b.add(new WildcardQuery(new Term("sig", wildcard(kind + ":", m.value()))), BooleanClause.Occur.SHOULD);
                    } else {
                        b.add(new TermQuery(new Term("sig", key)), BooleanClause.Occur.SHOULD);
                        if (kind.equals("lib") && !m.value().contains(".")) { // lib:zlibwapi finds zlibwapi.dll
                            b.add(new PrefixQuery(new Term("sig", key + ".")), BooleanClause.Occur.SHOULD);
                        }
                    }
                }
                yield new ConstantScoreQuery(b.build());
            }
            case GPU -> new ConstantScoreQuery(new WildcardQuery(new Term("sig", wildcard("gpu:*", m.value() + "*"))));
            case VERSION -> {
                BooleanQuery.Builder b = new BooleanQuery.Builder();
                for (String kind : m.field().reads()) {
                    b.add(LongPoint.newRangeQuery("v:" + kind, m.low(), m.high()), BooleanClause.Occur.SHOULD);
                }
                yield new ConstantScoreQuery(b.build());
            }
            case DATE -> LongPoint.newRangeQuery("uploaded", m.low(), m.high());
            case YESNO -> new ConstantScoreQuery(new TermQuery(new Term("confirmed", m.value())));
            case UPLOADER -> new MatchNoDocsQuery("uploader: not resolved to bundles (CrashQuery.Parsed.resolveUploaders)");
            case GROUP -> new ConstantScoreQuery(new TermQuery(new Term("group", m.value())));
        };
    }

    // A wildcard pattern: the prefix as is, the user's value with '*' kept and every other special character escaped.
    private static String wildcard(String prefix, String value) {
        StringBuilder sb = new StringBuilder(prefix);
        for (char c : value.toCharArray()) {
            if (c == '?' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    // The bundle ids of hits in the hits' order.
    private static long[] idsInOrder(IndexSearcher s, ScoreDoc[] hits) throws IOException {
        Integer[] order = new Integer[hits.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> hits[i].doc));
        ScoreDoc[] byDoc = new ScoreDoc[hits.length];
        for (int i = 0; i < order.length; i++) {
            byDoc[i] = hits[order[i]];
        }
        long[] sorted = bundleIds(s, byDoc);
        long[] out = new long[hits.length];
        for (int i = 0; i < order.length; i++) {
            out[order[i]] = sorted[i];
        }
        return out;
    }

    /**
     * The indexed bundles most like {@code bundleId}: those sharing at least one specific term (a code, a library,
     * a module, an event, the likely cause), most alike first. Empty if the bundle is not indexed.
     */
    public List<Similar> similar(long bundleId, int limit) {
        CrashSignature mine = signature(bundleId);
        return mine == null ? List.of() : similarTo(mine, bundleId, limit);
    }

    /**
     * The indexed bundles most like a signature (indexed or not), leaving out {@code exclude}. Similarity is
     * {@link #similarity}: the idf of the shared terms against the idf of both signatures' terms, so a term no other
     * bundle has counts fully against every match, and a pair gets one number whichever side asks.
     */
    public List<Similar> similarTo(CrashSignature mine, long exclude, int limit) {
        return similarTo(mine, exclude, limit, FIRST_STAGE);
    }

    /**
     * {@link #similarTo(CrashSignature, long, int)}, Lucene's first stage returning {@code firstStage} candidates at
     * first (tests make it small to reach the point where the stages disagree).
     *
     * <p>Two stages. First Lucene ranks the bundles that share a specific term by the weight of all the terms they share
     * (each of my terms a constant-score clause boosted by its weight, so Lucene's score is that sum and its top-k
     * search skips what cannot compete) and returns the best {@code firstStage}. Then each of those gets its exact
     * similarity. A bundle left out shares at most the weight {@code floor} of the last one returned, and its own
     * weight is at least what it shares, so its similarity is at most {@code similarity(floor, mine, floor)}: when
     * {@code limit} of the rescored bundles are above that bound, no bundle left out can be in the top {@code limit},
     * and the answer is the exact one. When the cut falls among bundles that share every term of mine, the newest exact
     * duplicates (1.0) are looked for among the bundles holding all my terms, newest first. Otherwise the first stage is
     * asked again for four times as many, up to {@link #MAX_CANDIDATES} bundles sharing a specific term (there the
     * answer is the best of those candidates: the one approximation left, as before this change).
     */
    List<Similar> similarTo(CrashSignature mine, long exclude, int limit, int firstStage) {
        if (limit <= 0 || mine.terms().stream().noneMatch(SignatureTerm::specific)) {
            return List.of();
        }
        IndexSearcher s = acquire();
        try {
            int docs = Math.max(1, s.getIndexReader().numDocs());
            Idfs idfs = idfs(s.getIndexReader());
            Map<String, Double> idf = new java.util.HashMap<>();
            Map<String, Integer> dfs = new java.util.HashMap<>();
            for (SignatureTerm t : mine.terms()) {
                if (idf.containsKey(t.key())) {
                    continue; // each key counts once, as in the other side's key set
                }
                int df = s.getIndexReader().docFreq(new Term("sig", t.key()));
                idf.put(t.key(), idf(docs, df));
                dfs.put(t.key(), df);
            }
            String[] myKeys = idf.keySet().toArray(String[]::new);
            Arrays.sort(myKeys);
            double total = weight(myKeys, null, idf);
            // my keys that some bundle has, by term id (sorted, for a binary search), whether each is specific, and
            // the weights by term id: the per-candidate loop below does no string hashing
            Map<String, Boolean> mySpecific = new java.util.HashMap<>();
            mine.terms().forEach(t -> mySpecific.merge(t.key(), t.specific(), Boolean::logicalOr));
            IntDoubleMap weights = new IntDoubleMap();
            long[] packed = new long[myKeys.length];
            int known = 0;
            for (String k : myKeys) {
                Integer tid = termIds.get(k);
                if (tid != null) {
                    weights.put(tid, idf.get(k));
                    packed[known++] = (long) tid << 1 | (mySpecific.get(k) ? 1 : 0);
                }
            }
            Arrays.sort(packed, 0, known);
            int[] myIds = new int[known];
            boolean[] mySpec = new boolean[known];
            for (int i = 0; i < known; i++) {
                myIds[i] = (int) (packed[i] >>> 1);
                mySpec[i] = (packed[i] & 1) == 1;
            }
            // the first stage's query: a specific term shared (no other bundle can qualify), scored by the shared weight
            BooleanQuery.Builder specific = new BooleanQuery.Builder();
            BooleanQuery.Builder shared = new BooleanQuery.Builder();
            BooleanQuery.Builder any = new BooleanQuery.Builder();
            int specificClauses = 0;
            for (String k : myKeys) {
                if (dfs.get(k) == 0) {
                    continue; // no bundle has it
                }
                Query weighted = new org.apache.lucene.search.BoostQuery(new ConstantScoreQuery(new TermQuery(new Term("sig", k))),
                        (float) (double) idf.get(k));
                any.add(weighted, BooleanClause.Occur.SHOULD);
                if (mySpecific.get(k)) {
                    specific.add(weighted, BooleanClause.Occur.SHOULD);
                    specificClauses++;
                } else {
                    shared.add(weighted, BooleanClause.Occur.SHOULD);
                }
            }
            if (specificClauses == 0) {
                return List.of();
            }
            // each round asks for the bundles sharing any term of mine, most shared weight first (one flat
            // disjunction, which Lucene's top-k skips through fastest; those sharing no specific term are dropped
            // below, and the bound holds for them too); the last round, at the cap, only for those sharing a specific one
            Query flat = any.build();
            Query qualifying = shared.add(specific.build(), BooleanClause.Occur.MUST).build();
            int want = Math.max(limit + 1, Math.min(firstStage, MAX_CANDIDATES));
            for (int round = 0; ; round++) {
                boolean capped = want >= MAX_CANDIDATES;
                ScoreDoc[] hits = s.search(capped ? qualifying : flat, Math.min(docs, want)).scoreDocs;
                long[] ids = idsInOrder(s, hits);
                double[] sims = new double[ids.length];
                boolean[] kept = new boolean[ids.length];
                for (int c = 0; c < ids.length; c++) {
                    long id = ids[c];
                    Indexed theirs = signatures.get(id);
                    if (id == exclude || theirs == null) {
                        continue;
                    }
                    // their keys in key order: the shared ones come in the order my sorted keys have them, so either side
                    // asking adds the same numbers in the same order
                    double theirWeight = 0;
                    double sharedIdf = 0;
                    boolean anySpecific = false;
                    int[] tids = theirs.ids();
                    for (int i = 0; i < tids.length; i++) {
                        double w = idfs.weight(weights, tids[i], theirs.sorted()[i]);
                        theirWeight += w;
                        int m = Arrays.binarySearch(myIds, tids[i]);
                        if (m >= 0) {
                            sharedIdf += w;
                            anySpecific |= mySpec[m];
                        }
                    }
                    if (anySpecific) {
                        sims[c] = similarity(sharedIdf, total, theirWeight);
                        kept[c] = true;
                    }
                }
                boolean complete = hits.length < want || capped || want >= docs;
                double bound = 0;
                if (!complete) {
                    // the most any bundle left out can share (Lucene sums float weights: a margin for their rounding),
                    // and so the most alike it can be
                    double floor = hits[hits.length - 1].score * (1 + 1e-5) + 1e-6;
                    bound = similarity(floor, total, floor);
                    int above = 0;
                    for (int c = 0; c < ids.length; c++) {
                        above += kept[c] && sims[c] > bound ? 1 : 0;
                    }
                    complete = above >= limit;
                }
                if (complete) {
                    return top(mine, ids, sims, kept, limit);
                }
                if (round == 0 && bound >= 1.0) {
                    // the cut fell among bundles that share every term of mine: exact duplicates (1.0) decide, newest first
                    List<Similar> same = duplicates(s, mine, myKeys, total, weights, idfs, exclude, limit, want);
                    if (same != null) {
                        return same;
                    }
                }
                want = (int) Math.min(MAX_CANDIDATES, 4L * want);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            release(s);
        }
    }

    /**
     * The weights of signature terms by term id as one reader sees them: a term's document frequency is looked up in
     * the terms dictionary of every segment, once per reader rather than once per request and candidate.
     */
    private record Idfs(org.apache.lucene.index.IndexReader reader, int docs, Map<Integer, Double> byTermId) {
        double weight(int termId, String key) throws IOException {
            Double w = byTermId.get(termId);
            if (w == null) {
                int df = reader.docFreq(new Term("sig", key));
                w = idf(docs, df);
                if (byTermId.size() < MAX_CACHED_WEIGHTS) {
                    byTermId.put(termId, w);
                }
            }
            return w;
        }

        /** {@link #weight(int, String)} through one request's own map of the weights it has looked up. */
        double weight(IntDoubleMap seen, int termId, String key) throws IOException {
            double w = seen.get(termId);
            if (Double.isNaN(w)) {
                w = weight(termId, key);
                seen.put(termId, w);
            }
            return w;
        }
    }

    private static final int MAX_CACHED_WEIGHTS = 1 << 20;
    private volatile Idfs idfs;

    private Idfs idfs(org.apache.lucene.index.IndexReader reader) {
        Idfs cached = idfs;
        if (cached == null || cached.reader() != reader) {
            cached = new Idfs(reader, Math.max(1, reader.numDocs()), new ConcurrentHashMap<>());
            idfs = cached;
        }
        return cached;
    }

    /**
     * The newest {@code limit} bundles whose terms are exactly mine (similarity 1.0, the most any bundle can have), or
     * null when fewer than that many are among the newest {@code scan} that hold every term of mine: a conjunction,
     * newest first, cheaper than ranking every bundle that shares a term.
     */
    private List<Similar> duplicates(IndexSearcher s, CrashSignature mine, String[] myKeys, double total,
                                     IntDoubleMap weights, Idfs idfs, long exclude, int limit, int scan) throws IOException {
        BooleanQuery.Builder all = new BooleanQuery.Builder();
        for (String k : myKeys) {
            all.add(new TermQuery(new Term("sig", k)), BooleanClause.Occur.FILTER);
        }
        ScoreDoc[] hits = s.search(all.build(), scan, new Sort(new SortField("idv", SortField.Type.LONG, true))).scoreDocs;
        long[] ids = idsInOrder(s, hits);
        double[] sims = new double[ids.length];
        boolean[] kept = new boolean[ids.length];
        int found = 0;
        for (int c = 0; c < ids.length && found < limit; c++) {
            Indexed theirs = signatures.get(ids[c]);
            if (ids[c] == exclude || theirs == null) {
                continue;
            }
            double theirWeight = 0;
            int[] tids = theirs.ids();
            for (int i = 0; i < tids.length; i++) {
                double w = idfs.weight(weights, tids[i], theirs.sorted()[i]);
                theirWeight += w;
            }
            // they hold every key of mine: the shared weight is mine, summed in the same key order
            sims[c] = similarity(total, total, theirWeight);
            if (sims[c] >= 1.0) {
                kept[c] = true;
                found++;
            }
        }
        return found < limit ? null : top(mine, ids, sims, kept, limit);
    }

    /** How many candidates the first stage of a similar-crash request returns at first. */
    static final int FIRST_STAGE = 256;

    // the best `limit` of the scored candidates: most alike first, then the newest bundle id
    private List<Similar> top(CrashSignature mine, long[] ids, double[] sims, boolean[] kept, int limit) {
        List<Similar> top = new ArrayList<>();
        while (top.size() < limit) {
            int best = -1;
            for (int c = 0; c < ids.length; c++) {
                if (kept[c] && (best < 0 || sims[c] > sims[best] || sims[c] == sims[best] && ids[c] > ids[best])) {
                    best = c;
                }
            }
            if (best < 0) {
                break;
            }
            kept[best] = false;
            String[] keys = signatures.get(ids[best]).sorted();
            top.add(new Similar(ids[best], sims[best], mine.terms().stream().filter(t -> Arrays.binarySearch(keys, t.key()) >= 0)
                    .sorted(Comparator.comparing((SignatureTerm t) -> !t.specific())).toList()));
        }
        return top;
    }

    // int -> double, open addressing (NaN: absent): the weights of one similar-crash request by term id
    private static final class IntDoubleMap {
        private int[] keys = new int[64];
        private double[] values = new double[64];
        private boolean[] used = new boolean[64];
        private int size;

        double get(int key) {
            int mask = keys.length - 1;
            for (int i = mix(key) & mask; used[i]; i = (i + 1) & mask) {
                if (keys[i] == key) {
                    return values[i];
                }
            }
            return Double.NaN;
        }

        void put(int key, double value) {
            if (2 * (size + 1) > keys.length) {
                int[] k = keys;
                double[] v = values;
                boolean[] u = used;
                keys = new int[k.length * 2];
                values = new double[k.length * 2];
                used = new boolean[k.length * 2];
                size = 0;
                for (int i = 0; i < k.length; i++) {
                    if (u[i]) {
                        put(k[i], v[i]);
                    }
                }
            }
            int mask = keys.length - 1;
            int i = mix(key) & mask;
            while (used[i] && keys[i] != key) {
                i = (i + 1) & mask;
            }
            if (!used[i]) {
                used[i] = true;
                size++;
            }
            keys[i] = key;
            values[i] = value;
        }

        private static int mix(int k) {
            return k * 0x9E3779B9 ^ k >>> 16;
        }
    }

    /**
     * A term's weight: its idf among {@code docs} live bundles, above 0. The document frequency counts deleted
     * documents until their segment is merged, so in a small index that has seen updates it can exceed {@code docs}:
     * then it is taken as the number of bundles (the formula went negative, which broke the first stage's bound, a
     * bundle's own terms weighing at least the ones it shares, and cannot be a Lucene boost).
     */
    static double idf(int docs, int df) {
        return Math.log(1 + (Math.max(docs, df) - df + 0.5) / (df + 0.5));
    }

    /**
     * How alike two crashes are, the same number whichever of the two is asked about: the idf-weighted Dice
     * coefficient, twice the weight of the shared terms over the weight of both signatures. (A share of one side's
     * terms alone made one pair "61 % alike" on one bundle's page and "38 % alike" on the other's; issue 27.)
     */
    static double similarity(double shared, double mine, double theirs) {
        return mine + theirs > 0 ? Math.min(1.0, 2 * shared / (mine + theirs)) : 0;
    }

    // the sum of the weights of the sorted keys (those in `in` alone, unless null), added in key order
    private static double weight(String[] sortedKeys, Set<String> in, Map<String, Double> idf) {
        double sum = 0;
        for (String k : sortedKeys) {
            if (in == null || in.contains(k)) {
                sum += idf.get(k);
            }
        }
        return sum;
    }

    // The bundle ids of hits, from doc values (no stored-field reads), in doc order.
    private static long[] bundleIds(IndexSearcher s, ScoreDoc[] hits) throws IOException {
        ScoreDoc[] byDoc = hits.clone();
        Arrays.sort(byDoc, Comparator.comparingInt(sd -> sd.doc));
        List<LeafReaderContext> leaves = s.getIndexReader().leaves();
        long[] ids = new long[byDoc.length];
        int leaf = -1;
        NumericDocValues values = null;
        for (int i = 0; i < byDoc.length; i++) {
            int l = ReaderUtil.subIndex(byDoc[i].doc, leaves);
            if (l != leaf) {
                leaf = l;
                values = DocValues.getNumeric(leaves.get(l).reader(), "idv");
            }
            ids[i] = values.advanceExact(byDoc[i].doc - leaves.get(l).docBase) ? values.longValue() : -1;
        }
        return ids;
    }

    // The query's words: the analyser's whole tokens (a compound's parts, at the same position, are left out so
    // that "libfoo.so" does not also ask for every "so"); number placeholders are left out too.
    private record QueryTerms(Set<String> words) {}

    private QueryTerms terms(String text) {
        Set<String> out = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream("text", text)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
            ts.reset();
            while (ts.incrementToken() && out.size() < MAX_QUERY_TERMS) {
                String s = t.toString();
                if (inc.getPositionIncrement() > 0 && !s.startsWith("<")) {
                    out.add(s);
                }
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new QueryTerms(out);
    }

    private IndexSearcher acquire() {
        try {
            long want = written.get();
            long behind = want - seen.get();
            if (behind > 0) {
                if (searchers.maybeRefresh()) {
                    seen.accumulateAndGet(want, Math::max); // refreshed here, or nobody needed to
                } else if (behind > FEW_WRITES || seen.get() == 0) {
                    // the first search after opening or a build, or a burst of writes: waits for the refresh under
                    // way, then refreshes again (that one may have begun before these writes)
                    searchers.maybeRefreshBlocking();
                    seen.accumulateAndGet(want, Math::max);
                }
                // else: another thread is refreshing and only a few writes are missing (they show at the next
                // search); a search does not queue behind that refresh, often a background reading's on a
                // low-priority thread (under load, 42 searches waited 2.2 s each for one)
            }
            return searchers.acquire();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void release(IndexSearcher s) {
        try {
            searchers.release(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Called in the refreshing thread before each refresh of the searcher (tests hold a refresh open with it). */
    void beforeRefresh(Runnable hook) {
        searchers.addListener(new org.apache.lucene.search.ReferenceManager.RefreshListener() {
            @Override
            public void beforeRefresh() {
                hook.run();
            }

            @Override
            public void afterRefresh(boolean didRefresh) {
                // nothing
            }
        });
    }

    @Override
    public void close() throws IOException {
        try {
            searchers.close();
            writer.close();
        } finally {
            directory.close();
        }
    }
}
