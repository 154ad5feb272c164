package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatOutcome;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import java.util.List;

/** Turns compat outcomes into evidence for every {@code compat:} matcher whose outcome they equal. */
final class MatchCompatMatchers implements Rule {

    @Override
    public String name() {
        return "match-compat-matchers";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return !ctx.compat.isEmpty();
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
            if (m.source() != Matcher.Source.COMPAT) {
                continue;
            }
            for (CompatOutcome o : ctx.compat) {
                if (o.check().equals(m.compat()) && o.result().written().equals(m.outcome())) {
                    String text = m.says() != null && !m.says().isBlank() ? m.says() + " (" + o.explanation() + ")" : o.explanation();
                    ctx.addEvidence(a.id(), new Evidence(m.id(), text, m.weight(), m.specific(),
                            o.facts().stream().flatMap(f -> f.sources().stream().limit(1)).limit(4).toList()), counter);
                }
            }
        }
    }
}
