package dev.crashlab.search;

import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.KnowledgeBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
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
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Ranks articles by plain BM25 of a bundle's whole text against each article's whole text with Lucene's
 * standard analyzer: the "paste the log into a search box" baseline that {@code crashlab eval --baseline bm25}
 * prints beside the engine.
 */
public final class Bm25Baseline {

    private static final int MAX_QUERY_TERMS = 1000;

    private final Analyzer analyzer = new StandardAnalyzer();
    private final IndexSearcher searcher;
    private final int size;

    private Bm25Baseline(IndexSearcher searcher, int size) {
        this.searcher = searcher;
        this.size = size;
    }

    /** Indexes every article's front matter and body as one text field. */
    public static Bm25Baseline build(KnowledgeBase kb) {
        try {
            ByteBuffersDirectory dir = new ByteBuffersDirectory();
            try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()))) {
                for (KbArticle a : kb.articles()) {
                    Document d = new Document();
                    d.add(new StringField("id", a.id(), Field.Store.YES));
                    d.add(new TextField("text", a.title() + "\n" + KbIndex.literals(a) + "\n" + a.body(), Field.Store.NO));
                    w.addDocument(d);
                }
            }
            return new Bm25Baseline(new IndexSearcher(DirectoryReader.open(dir)), kb.articles().size());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Article ids, best first, for a bundle's text. */
    public List<String> rank(String bundleText) {
        Set<String> terms = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream("text", bundleText)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && terms.size() < MAX_QUERY_TERMS) {
                terms.add(t.toString());
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        terms.forEach(t -> b.add(new TermQuery(new Term("text", t)), BooleanClause.Occur.SHOULD));
        try {
            List<String> out = new ArrayList<>();
            for (ScoreDoc sd : searcher.search(b.build(), Math.max(1, size)).scoreDocs) {
                out.add(searcher.storedFields().document(sd.doc).get("id"));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
