package dev.crashlab.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

/**
 * Picks the passages of an article that contain the most query terms and marks those terms, using the
 * same analyzer as the index (so {@code cudart} marks {@code cudart64_110.dll}).
 */
public final class Snippets {

    static final int MAX_SNIPPET = 240;

    private Snippets() {}

    /** One analysed token of a passage: its term and where it lies in the passage. */
    public record Token(String term, int start, int end) {}

    /** One passage (a paragraph or list item) of an article, analysed once when the index is built. */
    public record Passage(String text, List<Token> tokens) {}

    /** Splits an article into passages and analyses each. */
    public static List<Passage> passages(Analyzer analyzer, String text) {
        List<Passage> out = new ArrayList<>();
        for (String passage : PASSAGE.split(text)) {
            String p = SPACES.matcher(passage.strip()).replaceAll(" ");
            if (!p.isEmpty()) {
                out.add(analyse(analyzer, p));
            }
        }
        return List.copyOf(out);
    }

    /**
     * The passages of {@code text} that may hold one of {@code terms}, each analysed: those whose lower-cased text has
     * a term inside it (every token of the analyser is a piece of its passage, lower-cased; a placeholder such as
     * {@code <num>} is never a query term). {@link #best} picks the same snippets from these as from every passage,
     * without analysing the passages that cannot match (most of a long text).
     */
    public static List<Passage> passages(Analyzer analyzer, String text, Set<String> terms) {
        List<Passage> out = new ArrayList<>();
        for (String passage : PASSAGE.split(text)) {
            String p = SPACES.matcher(passage.strip()).replaceAll(" ");
            if (p.isEmpty() || !mayHold(p, terms)) {
                continue;
            }
            out.add(analyse(analyzer, p));
        }
        return List.copyOf(out);
    }

    private static final java.util.regex.Pattern PASSAGE = java.util.regex.Pattern.compile("\\n\\s*\\n|\\n(?=\\s*[-*#|])");
    private static final java.util.regex.Pattern SPACES = java.util.regex.Pattern.compile("\\s+");

    // whether a term is a piece of the passage lower-cased code point by code point, as LowerCaseFilter does
    private static boolean mayHold(String p, Set<String> terms) {
        StringBuilder lower = new StringBuilder(p.length());
        p.codePoints().forEach(c -> lower.appendCodePoint(Character.toLowerCase(c)));
        String l = lower.toString();
        for (String t : terms) {
            if (l.contains(t)) {
                return true;
            }
        }
        return false;
    }

    private static Passage analyse(Analyzer analyzer, String p) {
        List<Token> tokens = new ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream("body", p)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            OffsetAttribute off = ts.addAttribute(OffsetAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                tokens.add(new Token(term.toString(), off.startOffset(), off.endOffset()));
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Passage(p, List.copyOf(tokens));
    }

    /** Up to {@code max} passages with the matched words in {@code <mark>}, most distinct matches first. */
    public static List<String> best(List<Passage> passages, Set<String> terms, int max) {
        record Scored(String html, int hits, int order) {}
        List<Scored> scored = new ArrayList<>();
        int order = 0;
        for (Passage p : passages) {
            List<int[]> spans = matches(p, terms);
            if (!spans.isEmpty()) {
                scored.add(new Scored(mark(p.text(), spans),
                        (int) spans.stream().map(s -> p.text().substring(s[0], s[1]).toLowerCase()).distinct().count(), order++));
            }
        }
        scored.sort(Comparator.comparingInt((Scored s) -> -s.hits()).thenComparingInt(Scored::order));
        return scored.stream().limit(max).map(Scored::html).toList();
    }

    private static List<int[]> matches(Passage p, Set<String> terms) {
        List<int[]> spans = new ArrayList<>();
        for (Token t : p.tokens()) {
            if (terms.contains(t.term())) {
                int[] span = {t.start(), t.end()};
                // a compound and its parts share offsets; keep the widest, non-overlapping
                spans.removeIf(s -> s[0] >= span[0] && s[1] <= span[1]);
                if (spans.stream().noneMatch(s -> s[0] <= span[0] && s[1] >= span[1])) {
                    spans.add(span);
                }
            }
        }
        spans.sort(Comparator.comparingInt(s -> s[0]));
        return spans;
    }

    // Cuts the passage around its first match, escapes it, and marks the matches.
    private static String mark(String p, List<int[]> spans) {
        int from = Math.max(0, Math.min(spans.getFirst()[0] - 60, p.length() - MAX_SNIPPET));
        int to = Math.min(p.length(), from + MAX_SNIPPET);
        StringBuilder sb = new StringBuilder(from > 0 ? "…" : "");
        int at = from;
        for (int[] s : spans) {
            if (s[0] < at || s[1] > to) {
                continue;
            }
            sb.append(escape(p.substring(at, s[0]))).append("<mark>").append(escape(p.substring(s[0], s[1]))).append("</mark>");
            at = s[1];
        }
        sb.append(escape(p.substring(at, to))).append(to < p.length() ? "…" : "");
        return sb.toString();
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
