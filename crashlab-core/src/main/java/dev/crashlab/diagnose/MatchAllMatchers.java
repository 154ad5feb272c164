package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatOutcome;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.TimedRegex;
import java.util.ArrayList;
import java.util.List;

/**
 * Matches every {@code all:} matcher: evidence only when each of its parts holds together (two facts that
 * mean little alone, e.g. "No space left on device" inside a container), where a part marked
 * {@code absent: true} holds when nothing in the bundle matches it (no AVX among the CPU flags that were read).
 */
final class MatchAllMatchers implements Rule {

    /** The source lines kept per part as the evidence's citations. */
    static final int SOURCES_PER_PART = 2;

    @Override
    public String name() {
        return "match-all-matchers";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.kb.articles().stream().anyMatch(a -> a.matchers().stream().anyMatch(m -> m.source() == Matcher.Source.ALL)
                || a.against().stream().anyMatch(m -> m.source() == Matcher.Source.ALL));
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        for (KbArticle a : ctx.kb.articles()) {
            match(ctx, a, a.matchers(), false);
            match(ctx, a, a.against(), true);
        }
    }

    private static void match(DiagnosisContext ctx, KbArticle a, List<Matcher> matchers, boolean counter) {
        for (Matcher m : matchers) {
            if (m.source() != Matcher.Source.ALL) {
                continue;
            }
            List<SourceRef> sources = new ArrayList<>();
            boolean holds = true;
            for (Matcher part : m.all()) {
                List<SourceRef> found = new ArrayList<>();
                boolean any = matches(ctx, a, part, part.absent() ? 0 : SOURCES_PER_PART, found);
                if (part.absent() == any) {
                    holds = false;
                    break;
                }
                found.stream().filter(s -> !sources.contains(s)).forEach(sources::add);
            }
            if (holds) {
                String text = m.says() != null && !m.says().isBlank() ? m.says()
                        : "found together: " + String.join("; ", sources.stream().map(s -> EvidenceText.shorten(s.text().strip())).toList());
                ctx.addEvidence(a.id(), new Evidence(m.id(), text, m.weight(), m.specific(), sources), counter);
            }
        }
    }

    /**
     * Tells whether anything matches one part, and adds the source lines of what it matches to {@code out}
     * (at most {@code max}; a compat part cites the facts it used).
     */
    private static boolean matches(DiagnosisContext ctx, KbArticle a, Matcher part, int max, List<SourceRef> out) {
        boolean any = false;
        switch (part.source()) {
            case FACT -> {
                for (Fact f : ctx.input.facts()) {
                    if (f.kind().equals(part.factKind()) && MatchFactMatchers.holds(ctx, part, f, a)) {
                        any = true;
                        f.sources().stream().limit(1).forEach(out::add);
                        if (out.size() >= max) {
                            break;
                        }
                    }
                }
            }
            case TEXT -> {
                for (SourceRef s : MatchTextMatchers.lines(ctx)) {
                    try {
                        if (part.text().matches(s.text())) {
                            any = true;
                            if (out.size() < max) {
                                out.add(s);
                            } else {
                                break;
                            }
                        }
                    } catch (TimedRegex.RegexTimeoutException e) {
                        ctx.note(a.id() + " matcher " + part.id() + ": " + e.getMessage() + " (" + s.artifact() + ":" + s.line() + ")");
                    }
                }
            }
            case COMPAT -> {
                for (CompatOutcome o : ctx.compat) {
                    if (o.check().equals(part.compat()) && o.result().written().equals(part.outcome())) {
                        any = true;
                        o.facts().stream().flatMap(f -> f.sources().stream().limit(1)).limit(max).forEach(out::add);
                    }
                }
            }
            case ALL -> { }
        }
        return any;
    }
}
