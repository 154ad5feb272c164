package dev.crashlab.search;

import dev.crashlab.diagnose.TextSimilarity;
import dev.crashlab.kb.FieldCondition;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.KnowledgeBase;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.Remedy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Indexes the KB in memory with {@link LogAnalyzer} (title, body, the matchers' literal strings, remedies) for
 * full-text search with highlighted snippets and typo tolerance, and for the diagnosis' weak text similarity; built
 * with a {@link SentenceEmbedder}, search also finds articles by meaning ("training freezes and the screen goes
 * black" finds the TDR article): each article's title and symptom passages are embedded into a Lucene vector field,
 * and a query's rank mixes its words' BM25 score with the nearest passage's cosine.
 *
 * <p>NOTE: immutable once built; build a new one when the KB changes. Thread-safe for searching. The passages
 * are embedded on the first search that needs them (or {@link #warm()}), not at build time.
 */
public final class KbIndex implements TextSimilarity {

    private static final int MAX_QUERY_TERMS = 1000; // one clause each, under Lucene's 1024-clause limit

    /** The share of the meaning (vector) score in a hybrid hit's score; the words' share is the rest. */
    static final double MEANING_WEIGHT = 0.5;
    /** The least cosine at which an article no query word matches is still a hit. */
    static final double MIN_COSINE = 0.3;
    /** The most passages of one article that are embedded. */
    static final int MAX_PASSAGES = 16;
    /** The most characters of one embedded passage (the model reads 256 word pieces; longer is cut). */
    static final int MAX_PASSAGE_CHARS = 700;

    private final Analyzer analyzer = new LogAnalyzer();
    private final KnowledgeBase kb;
    private final IndexSearcher searcher;
    private final SentenceEmbedder embedder; // null: words only
    private final Object meaningLock = new Object();
    private volatile Meaning meaning;
    private final java.util.concurrent.atomic.AtomicBoolean preparing = new java.util.concurrent.atomic.AtomicBoolean();
    // per article, analysed once: its passages (for snippets) and its distinct terms (for typo highlighting)
    private final Map<String, List<Snippets.Passage>> passages = new HashMap<>();
    private final Map<String, Set<String>> articleTerms = new HashMap<>();

    private KbIndex(KnowledgeBase kb, IndexSearcher searcher, SentenceEmbedder embedder) {
        this.kb = kb;
        this.searcher = searcher;
        this.embedder = embedder;
        for (KbArticle a : kb.articles()) {
            List<Snippets.Passage> ps = Snippets.passages(analyzer, a.title() + "\n\n" + a.body());
            passages.put(a.id(), ps);
            Set<String> terms = new java.util.HashSet<>();
            ps.forEach(p -> p.tokens().forEach(t -> terms.add(t.term())));
            articleTerms.put(a.id(), Set.copyOf(terms));
        }
    }

    /** Builds the index of a knowledge base for search by words only. */
    public static KbIndex build(KnowledgeBase kb) {
        return build(kb, null);
    }

    /** Builds the index of a knowledge base for search by words and, with an embedder (null: none), by meaning. */
    public static KbIndex build(KnowledgeBase kb, SentenceEmbedder embedder) {
        try {
            ByteBuffersDirectory dir = new ByteBuffersDirectory();
            Analyzer analyzer = new LogAnalyzer();
            try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
                for (KbArticle a : kb.articles()) {
                    Document d = new Document();
                    d.add(new StringField("id", a.id(), Field.Store.YES));
                    d.add(new TextField("title", a.title(), Field.Store.NO));
                    d.add(new TextField("body", a.body(), Field.Store.NO));
                    d.add(new TextField("literals", literals(a), Field.Store.NO));
                    d.add(new TextField("remedies", remedies(a), Field.Store.NO));
                    // everything in one field: the similarity query needs one clause per term, not four
                    d.add(new TextField("all", a.title() + "\n" + literals(a) + "\n" + a.body() + "\n" + remedies(a), Field.Store.NO));
                    w.addDocument(d);
                }
            }
            return new KbIndex(kb, new IndexSearcher(DirectoryReader.open(dir)), embedder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The words an article's matchers look for: regex literals with their syntax stripped, condition values, says. */
    static String literals(KbArticle a) {
        StringBuilder sb = new StringBuilder();
        for (List<Matcher> list : List.of(a.matchers())) {
            for (Matcher m : list) {
                if (m.text() != null) {
                    sb.append(regexWords(m.text().pattern().pattern())).append('\n');
                }
                for (FieldCondition c : m.where()) {
                    sb.append(regexWords(c.condition().written())).append('\n');
                }
                if (m.says() != null) {
                    sb.append(m.says().replaceAll("\\{[^}]*}", " ")).append('\n');
                }
                if (m.factKind() != null) {
                    sb.append(m.factKind()).append('\n');
                }
            }
        }
        return sb.toString();
    }

    // Leaves the words of a regex: escapes become literals, operators become spaces.
    private static String regexWords(String re) {
        return re.replaceAll("\\\\[dwsbDWSB]", " ").replaceAll("\\\\(.)", "$1").replaceAll("[\\^$|()\\[\\]{}?*+]", " ");
    }

    private static String remedies(KbArticle a) {
        StringBuilder sb = new StringBuilder();
        for (Remedy r : a.remedies()) {
            r.steps().forEach(s -> sb.append(s).append('\n'));
        }
        a.confirm().forEach(s -> sb.append(s).append('\n'));
        return sb.toString();
    }

    /** The analysed terms of a text, distinct, in order. */
    Set<String> terms(String text, int max) {
        Set<String> out = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream("body", text)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && out.size() < max) {
                String s = t.toString();
                if (!s.startsWith("<") && s.length() > 1) {
                    out.add(s);
                }
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * Searches the KB: every analysed query term on title (x3), matcher literals (x2), body and remedies; a term
     * the KB does not contain also matches fuzzily (1 edit from 4 letters, 2 from 8), for typos. With an embedder,
     * the rank is {@code (1 - MEANING_WEIGHT) * words + MEANING_WEIGHT * meaning}: the words' score relative to the
     * best article's, and the cosine of the article's nearest passage scaled between the farthest article's
     * (0) and the nearest's (1); an article no word matches is a hit when its cosine reaches {@link #MIN_COSINE},
     * and its snippet is that passage.
     */
    public List<KbHit> search(String q, int max) {
        return search(q, max, true);
    }

    /**
     * Like {@link #search(String, int)}, but never waits for the meaning half: until the articles' passages are
     * embedded (the model's first load takes seconds) it searches by words alone and prepares the meaning half
     * on a background thread. For a server, whose first request must not wait for the model.
     */
    public List<KbHit> searchWithoutWaiting(String q, int max) {
        if (embedder != null && meaning == null && preparing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("kb-meaning").start(() -> {
                try {
                    warm();
                } finally {
                    preparing.set(false);
                }
            });
        }
        return search(q, max, meaning != null);
    }

    private List<KbHit> search(String q, int max, boolean withMeaning) {
        if (max <= 0) {
            return List.of();
        }
        Set<String> terms = terms(q == null ? "" : q, 32);
        if (embedder == null || !withMeaning || q == null || q.isBlank()) {
            return terms.isEmpty() ? List.of() : byWords(terms, max, true);
        }
        Map<String, Double> words = new HashMap<>();
        List<KbHit> lexical = terms.isEmpty() ? List.of() : byWords(terms, kb.articles().size(), false);
        double bestWords = lexical.isEmpty() ? 0 : lexical.getFirst().score();
        lexical.forEach(h -> words.put(h.id(), bestWords <= 0 ? 0 : h.score() / bestWords));
        Map<String, Nearest> nearest = nearestPassages(q);
        double lo = nearest.values().stream().mapToDouble(Nearest::cosine).min().orElse(0);
        double hi = nearest.values().stream().mapToDouble(Nearest::cosine).max().orElse(0);
        record Ranked(KbArticle article, double score, Nearest nearest) {}
        List<Ranked> ranked = new ArrayList<>();
        for (KbArticle a : kb.articles()) {
            Nearest n = nearest.get(a.id());
            double w = words.getOrDefault(a.id(), 0.0);
            if (w <= 0 && (n == null || n.cosine() < MIN_COSINE)) {
                continue;
            }
            double m = n == null || hi <= lo ? 0 : (n.cosine() - lo) / (hi - lo);
            ranked.add(new Ranked(a, (1 - MEANING_WEIGHT) * w + MEANING_WEIGHT * m, n));
        }
        ranked.sort(java.util.Comparator.comparingDouble((Ranked r) -> -r.score()).thenComparing(r -> r.article().id()));
        Set<String> unknown = unknownTerms(terms);
        List<KbHit> out = new ArrayList<>();
        for (Ranked r : ranked.subList(0, Math.min(max, ranked.size()))) {
            String id = r.article().id();
            List<String> marked = words.getOrDefault(id, 0.0) > 0
                    ? Snippets.best(passages.get(id), fuzzyExpand(new LinkedHashSet<>(terms), unknown, id), 2) : List.of();
            List<String> snippets = !marked.isEmpty() ? marked
                    : r.nearest() == null ? List.of() : List.of(Snippets.escape(cut(r.nearest().passage(), Snippets.MAX_SNIPPET)));
            out.add(new KbHit(r.article().id(), r.article().title(), r.article().category(), r.score(), snippets));
        }
        return out;
    }

    // The query terms the KB does not contain (typo candidates).
    private Set<String> unknownTerms(Set<String> terms) {
        Set<String> unknown = new LinkedHashSet<>();
        try {
            for (String t : terms) {
                if (searcher.getIndexReader().docFreq(new Term("all", t)) == 0) {
                    unknown.add(t);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return unknown;
    }

    // The articles whose words match, best first, with snippets where asked.
    private List<KbHit> byWords(Set<String> terms, int max, boolean withSnippets) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        Set<String> unknown = new LinkedHashSet<>();
        try {
            for (String t : terms) {
                // only a word the KB does not contain can be a typo; fuzzy matching the others would cost and blur
                boolean known = searcher.getIndexReader().docFreq(new Term("all", t)) > 0;
                if (!known) {
                    unknown.add(t);
                }
                b.add(termQuery(t, !known), BooleanClause.Occur.SHOULD);
            }
            TopDocs top = searcher.search(b.build(), Math.max(1, max));
            List<KbHit> hits = new ArrayList<>();
            Set<String> expanded = new LinkedHashSet<>(terms);
            for (ScoreDoc sd : top.scoreDocs) {
                String id = searcher.storedFields().document(sd.doc).get("id");
                KbArticle a = kb.article(id).orElseThrow();
                List<String> snippets = withSnippets ? Snippets.best(passages.get(id), fuzzyExpand(expanded, unknown, id), 2) : List.of();
                hits.add(new KbHit(id, a.title(), a.category(), sd.score, snippets));
            }
            return hits;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An article's passage nearest to a query, and its cosine. */
    record Nearest(String passage, double cosine) {}

    /** Article id -> its passage nearest in meaning to {@code text} (every article with a passage). */
    Map<String, Nearest> nearestPassages(String text) {
        Meaning m = meaning();
        if (m == null || m.passages() == 0) {
            return Map.of();
        }
        float[] v = embedder.embed(text);
        // every passage is a candidate, so an exact scan over vectors in memory: a few hundred dot products, no
        // stored fields to decompress per query (the Lucene vector index it replaces spent most of a query there)
        Map<String, Nearest> out = new HashMap<>();
        for (int i = 0; i < m.passages(); i++) {
            double cosine = SentenceEmbedder.dot(m.vectors()[i], v); // unit vectors
            out.merge(m.ids()[i], new Nearest(m.texts()[i], cosine), (x, y) -> x.cosine() > y.cosine()
                    || x.cosine() == y.cosine() && x.passage().compareTo(y.passage()) <= 0 ? x : y);
        }
        return out;
    }

    /** The articles' embedded passages: article id, text and unit vector of each. */
    private record Meaning(String[] ids, String[] texts, float[][] vectors, long millis) {
        int passages() {
            return ids.length;
        }
    }

    /** Embeds the articles' passages now (the first search by meaning would), so that first search is quick. */
    public void warm() {
        meaning();
    }

    /**
     * What the meaning half costs, or null without an embedder or before it was built.
     *
     * @param passages the embedded passages
     * @param vectorBytes the bytes of their vectors
     * @param buildMillis how long embedding and indexing them took (the model's loading included where it was first)
     */
    public record MeaningStats(int passages, long vectorBytes, long buildMillis) {}

    /** The meaning half's cost, or null (see {@link MeaningStats}). */
    public MeaningStats meaningStats() {
        Meaning m = meaning;
        return m == null ? null : new MeaningStats(m.passages(), (long) m.passages() * embedder.dimension() * Float.BYTES, m.millis());
    }

    private Meaning meaning() {
        if (embedder == null) {
            return null;
        }
        Meaning m = meaning;
        if (m == null) {
            synchronized (meaningLock) {
                m = meaning;
                if (m == null) {
                    m = buildMeaning();
                    meaning = m;
                }
            }
        }
        return m;
    }

    private Meaning buildMeaning() {
        long t0 = System.nanoTime();
        List<String> ids = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<float[]> vectors = new ArrayList<>();
        for (KbArticle a : kb.articles()) {
            for (String p : meaningPassages(a)) {
                ids.add(a.id());
                texts.add(p);
                vectors.add(embedder.embed(p));
            }
        }
        return new Meaning(ids.toArray(String[]::new), texts.toArray(String[]::new), vectors.toArray(float[][]::new),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * The passages of an article that are embedded: its title, each paragraph or list item of its Symptoms section,
     * and the first paragraph of every other section (at most {@link #MAX_PASSAGES}, each cut to
     * {@link #MAX_PASSAGE_CHARS}), with Markdown's backticks and emphasis taken out.
     */
    static List<String> meaningPassages(KbArticle a) {
        List<String> out = new ArrayList<>();
        out.add(a.title());
        String section = "";
        StringBuilder para = new StringBuilder();
        List<String> paragraphs = new ArrayList<>();
        List<String> sections = new ArrayList<>();
        for (String line : (a.body() + "\n").split("\n", -1)) {
            String t = line.strip();
            boolean item = t.startsWith("- ") || t.startsWith("* ") || t.matches("\\d+\\. .*");
            if (t.isEmpty() || t.startsWith("#") || item) {
                if (!para.isEmpty()) {
                    paragraphs.add(para.toString());
                    sections.add(section);
                    para.setLength(0);
                }
                if (t.startsWith("#")) {
                    section = t.replaceFirst("^#+\\s*", "").toLowerCase(java.util.Locale.ROOT);
                }
                if (!item) {
                    continue;
                }
                t = t.replaceFirst("^(- |\\* |\\d+\\. )", "");
            }
            para.append(para.isEmpty() ? "" : " ").append(t);
        }
        String last = null;
        for (int i = 0; i < paragraphs.size() && out.size() < MAX_PASSAGES; i++) {
            String sec = sections.get(i);
            boolean first = !sec.equals(last);
            last = sec;
            if (sec.startsWith("symptom") || first) {
                String p = paragraphs.get(i).replaceAll("[`*_]", "").strip();
                if (p.length() >= 20) {
                    out.add(cut(p, MAX_PASSAGE_CHARS));
                }
            }
        }
        return out;
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    // The query's terms plus the article's own words within the fuzzy distance of one, so typos highlight too.
    private Set<String> fuzzyExpand(Set<String> terms, Set<String> unknown, String id) {
        Set<String> out = new LinkedHashSet<>(terms);
        if (unknown.isEmpty()) {
            return out;
        }
        for (String w : articleTerms.get(id)) {
            for (String t : unknown) {
                int edits = maxEdits(t);
                if (edits > 0 && Math.abs(w.length() - t.length()) <= edits && distance(w, t) <= edits) {
                    out.add(w);
                }
            }
        }
        return out;
    }

    private static int maxEdits(String t) {
        return t.length() >= 8 ? 2 : t.length() >= 4 ? 1 : 0;
    }

    // Levenshtein distance, two rows.
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static Query termQuery(String t, boolean fuzzy) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        b.add(new BoostQuery(new TermQuery(new Term("title", t)), 3f), BooleanClause.Occur.SHOULD);
        b.add(new BoostQuery(new TermQuery(new Term("literals", t)), 2f), BooleanClause.Occur.SHOULD);
        b.add(new TermQuery(new Term("body", t)), BooleanClause.Occur.SHOULD);
        b.add(new BoostQuery(new TermQuery(new Term("remedies", t)), 0.5f), BooleanClause.Occur.SHOULD);
        if (fuzzy && maxEdits(t) > 0) {
            b.add(new BoostQuery(new FuzzyQuery(new Term("all", t), maxEdits(t), 1), 0.5f), BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    /** Article id -> similarity in [0, 1] of the article to the error lines (BM25 on the domain analyzer, normalised by the best). */
    @Override
    public Map<String, Double> similarity(List<String> errorLines) {
        Set<String> terms = terms(String.join("\n", errorLines), MAX_QUERY_TERMS);
        if (terms.isEmpty()) {
            return Map.of();
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (String t : terms) {
            b.add(new TermQuery(new Term("all", t)), BooleanClause.Occur.SHOULD);
        }
        try {
            TopDocs top = searcher.search(b.build(), Math.max(1, kb.articles().size()));
            Map<String, Double> out = new HashMap<>();
            double best = top.scoreDocs.length == 0 ? 0 : top.scoreDocs[0].score;
            for (ScoreDoc sd : top.scoreDocs) {
                out.put(searcher.storedFields().document(sd.doc).get("id"), best <= 0 ? 0 : sd.score / best);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
