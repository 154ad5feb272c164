package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.TimedRegex;
import dev.crashlab.parse.CollectorPrefix;
import dev.crashlab.parse.WindowsMessages;
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
        for (KbArticle a : ctx.kb.articles()) {
            match(ctx, a, a.matchers(), all, bare, false);
            match(ctx, a, a.against(), all, bare, true);
        }
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
                              boolean counter) {
        for (Matcher m : matchers) {
            if (m.source() != Matcher.Source.TEXT) {
                continue;
            }
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
        }
    }
}
