package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.kb.FieldCondition;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.TimedRegex;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Matches every {@code fact:} matcher of every article against the bundle's facts of that kind (README "Matchers"). */
final class MatchFactMatchers implements Rule {

    @Override
    public String name() {
        return "match-fact-matchers";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return !ctx.input.facts().isEmpty();
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        Map<String, List<Fact>> byKind = new LinkedHashMap<>();
        for (Fact f : ctx.input.facts()) {
            byKind.computeIfAbsent(f.kind(), k -> new java.util.ArrayList<>()).add(f);
        }
        for (KbArticle a : ctx.kb.articles()) {
            match(ctx, a, a.matchers(), byKind, false);
            match(ctx, a, a.against(), byKind, true);
        }
    }

    private static void match(DiagnosisContext ctx, KbArticle a, List<Matcher> matchers, Map<String, List<Fact>> byKind,
            boolean counter) {
        for (Matcher m : matchers) {
            if (m.source() != Matcher.Source.FACT) {
                continue;
            }
            for (Fact f : byKind.getOrDefault(m.factKind(), List.of())) {
                if (holds(ctx, m, f, a)) {
                    ctx.addEvidence(a.id(), new Evidence(m.id(), EvidenceText.forFact(m, f, ctx.fields), m.weight(), m.specific(),
                            f.sources().stream().limit(3).toList(), Evidence.isContext(m)), counter);
                }
            }
        }
    }

    static boolean holds(DiagnosisContext ctx, Matcher m, Fact f, KbArticle a) {
        for (FieldCondition c : m.where()) {
            try {
                if (!c.condition().test(ctx.fields.values(f, c.field()))) {
                    return false;
                }
            } catch (TimedRegex.RegexTimeoutException e) {
                ctx.note(a.id() + " matcher " + m.id() + ": " + e.getMessage());
                return false;
            }
        }
        return true;
    }
}
