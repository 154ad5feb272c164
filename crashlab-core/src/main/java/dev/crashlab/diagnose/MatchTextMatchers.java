package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.TimedRegex;
import dev.crashlab.parse.CollectorPrefix;
import dev.crashlab.parse.WindowsMessages;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Matches every {@code text:} matcher against the source text of every fact and the bundle's text lines,
 * for messages no parser types yet.
 */
final class MatchTextMatchers implements Rule {

    /** The most matching lines kept per matcher (it counts once anyway). */
    static final int MAX_HITS = 5;

    @Override
    public String name() {
        return "match-text-matchers";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.kb.articles().stream().anyMatch(a -> a.matchers().stream().anyMatch(m -> m.source() == Matcher.Source.TEXT)
                || a.against().stream().anyMatch(m -> m.source() == Matcher.Source.TEXT));
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        List<SourceRef> all = lines(ctx);
        List<String> bare = all.stream().map(s -> WindowsMessages.inEnglish(CollectorPrefix.strip(s.text()))).toList();
        List<SourceRef> cut = cutRows(ctx.input.lines());
        List<String> cutBare = cut.stream().map(s -> WindowsMessages.inEnglish(CollectorPrefix.strip(s.text()))).toList();
        for (KbArticle a : ctx.kb.articles()) {
            match(ctx, a, a.matchers(), all, bare, cut, cutBare, false);
            match(ctx, a, a.against(), all, bare, cut, cutBare, true);
        }
    }

    /** Widths a terminal or a chat client most often cuts a copied line at. */
    private static final int[] CONSOLE_WIDTHS = {80, 100, 120};

    /**
     * Rows that may be one line cut in two, each read joined with the row after it (cited at the first row): a row of
     * exactly a console's width (80, 100, 120 columns: a console cuts a copied line there, inside a word as often as
     * not) and a row that ends in a blank (a page or a mail breaks a line after one). The reader joins the cuts it can
     * tell from line ends ({@code parse/PastedText}); a cut inside a word of prose ("...used to com" + "pile", "file: N" +
     * "o such file") looks like two lines to it. A matcher reads these only where no line matched it: only a match that
     * runs across the cut is new, and a pattern that runs on from one line's end into the next is one message.
     */
    static List<SourceRef> cutRows(List<TextLine> lines) {
        List<SourceRef> out = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            TextLine l = lines.get(i);
            TextLine next = lines.get(i + 1);
            String t = l.text();
            if (t.isEmpty() || next.text().isEmpty() || next.line() != l.line() + 1 || !next.artifact().equals(l.artifact())) {
                continue;
            }
            char last = t.charAt(t.length() - 1);
            boolean consoleWidth = false;
            for (int w : CONSOLE_WIDTHS) {
                consoleWidth |= t.codePointCount(0, t.length()) == w;
            }
            boolean afterBlank = last == ' ' && t.length() >= 2 && !Character.isWhitespace(t.charAt(t.length() - 2));
            if (consoleWidth && !Character.isWhitespace(last) || afterBlank) {
                out.add(new SourceRef(l.artifact(), l.line(), t + next.text()));
            }
        }
        return out;
    }

    /**
     * Every line a text matcher reads: the facts' source lines and the bundle's text lines, each once. A line that
     * carries a log collector's prefix ({@link CollectorPrefix}) is matched with and without it, and one with a Windows
     * system message in another language ({@link WindowsMessages}) also with the message in English.
     */
    static List<SourceRef> lines(DiagnosisContext ctx) {
        if (ctx.textLines == null) {
            Set<SourceRef> lines = new LinkedHashSet<>();
            for (Fact f : ctx.input.facts()) {
                lines.addAll(f.sources());
            }
            for (TextLine l : ctx.input.lines()) {
                lines.add(new SourceRef(l.artifact(), l.line(), l.text()));
            }
            // NOTE: the same line may come from a fact and from the raw text; SourceRef equality merges them
            ctx.textLines = List.copyOf(lines);
        }
        return ctx.textLines;
    }

    private static void match(DiagnosisContext ctx, KbArticle a, List<Matcher> matchers, List<SourceRef> lines, List<String> bare,
                              List<SourceRef> cut, List<String> cutBare, boolean counter) {
        for (Matcher m : matchers) {
            if (m.source() != Matcher.Source.TEXT) {
                continue;
            }
            if (matchLines(ctx, a, m, lines, bare, counter) == 0) {
                matchLines(ctx, a, m, cut, cutBare, counter);
            }
        }
    }

    /** Matches {@code m} against {@code lines} (and their bare forms), adds the evidence and returns the hits. */
    private static int matchLines(DiagnosisContext ctx, KbArticle a, Matcher m, List<SourceRef> lines, List<String> bare,
                                  boolean counter) {
        int hits = 0;
        for (int i = 0; i < lines.size(); i++) {
            SourceRef s = lines.get(i);
            String b = bare.get(i);
            try {
                if (m.text().matches(s.text()) || b != s.text() && m.text().matches(b)) {
                    ctx.addEvidence(a.id(), new Evidence(m.id(), EvidenceText.forText(m, s.text()), m.weight(), m.specific(),
                            List.of(s)), counter);
                    if (++hits >= MAX_HITS) {
                        break;
                    }
                }
            } catch (TimedRegex.RegexTimeoutException e) {
                ctx.note(a.id() + " matcher " + m.id() + ": " + e.getMessage() + " (" + s.artifact() + ":" + s.line() + ")");
            }
        }
        return hits;
    }
}
