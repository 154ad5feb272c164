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
 * full-text search with highlighted snippets and typo tolerance, and for the diagnosis' weak text similarity.
 *
 * <p>NOTE: immutable once built; build a new one when the KB changes. Thread-safe for searching.
 */
public final class KbIndex implements TextSimilarity {

    private static final int MAX_QUERY_TERMS = 1000; // one clause each, under Lucene's 1024-clause limit

    private final Analyzer analyzer = new LogAnalyzer();
    private final KnowledgeBase kb;
    private final IndexSearcher searcher;
    // per article, analysed once: its passages (for snippets) and its distinct terms (for typo highlighting)
    private final Map<String, List<Snippets.Passage>> passages = new HashMap<>();
    private final Map<String, Set<String>> articleTerms = new HashMap<>();

    private KbIndex(KnowledgeBase kb, IndexSearcher searcher) {
        this.kb = kb;
        this.searcher = searcher;
        for (KbArticle a : kb.articles()) {
            List<Snippets.Passage> ps = Snippets.passages(analyzer, a.title() + "\n\n" + a.body());
            passages.put(a.id(), ps);
            Set<String> terms = new java.util.HashSet<>();
            ps.forEach(p -> p.tokens().forEach(t -> terms.add(t.term())));
            articleTerms.put(a.id(), Set.copyOf(terms));
        }
    }

    /** Builds the index of a knowledge base. */
    public static KbIndex build(KnowledgeBase kb) {
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
            return new KbIndex(kb, new IndexSearcher(DirectoryReader.open(dir)));
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
     * the KB does not contain also matches fuzzily (1 edit from 4 letters, 2 from 8), for typos.
     */
    public List<KbHit> search(String q, int max) {
        Set<String> terms = terms(q == null ? "" : q, 32);
        if (terms.isEmpty()) {
            return List.of();
        }
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
            TopDocs top = searcher.search(b.build(), max);
            List<KbHit> hits = new ArrayList<>();
            Set<String> expanded = new LinkedHashSet<>(terms);
            for (ScoreDoc sd : top.scoreDocs) {
                String id = searcher.storedFields().document(sd.doc).get("id");
                KbArticle a = kb.article(id).orElseThrow();
                List<String> snippets = Snippets.best(passages.get(id), fuzzyExpand(expanded, unknown, id), 2);
                hits.add(new KbHit(id, a.title(), a.category(), sd.score, snippets));
            }
            return hits;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
