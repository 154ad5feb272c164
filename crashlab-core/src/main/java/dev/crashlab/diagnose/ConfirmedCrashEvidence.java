package dev.crashlab.diagnose;

import dev.crashlab.fact.ConfirmedCrash;
import dev.crashlab.fact.Fact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Counts a similar past crash whose cause was confirmed as evidence for that cause (DESIGN: "scores combine ...
 * confirmed past reports"). The more alike the crashes, the stronger: {@code weight = MAX_WEIGHT × similarity};
 * at most {@link #PER_ARTICLE} crashes count per article, the most alike first.
 */
final class ConfirmedCrashEvidence implements Rule {

    /** The weight of a confirmed crash identical to this one: strong, but the bundle's own evidence can outweigh it. */
    static final double MAX_WEIGHT = 0.7;
    /** Confirmed crashes counted per article. */
    static final int PER_ARTICLE = 3;

    @Override
    public String name() {
        return "confirmed-crash-evidence";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.input.facts().stream().anyMatch(f -> f instanceof ConfirmedCrash);
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        List<ConfirmedCrash> confirmed = new ArrayList<>();
        for (Fact f : ctx.input.facts()) {
            if (f instanceof ConfirmedCrash c && ctx.kb.article(c.articleId()).isPresent() && c.similarity() > 0) {
                confirmed.add(c);
            }
        }
        confirmed.sort(Comparator.comparingDouble(ConfirmedCrash::similarity).reversed());
        java.util.Map<String, Integer> counted = new java.util.HashMap<>();
        for (ConfirmedCrash c : confirmed) {
            if (counted.merge(c.articleId(), 1, Integer::sum) > PER_ARTICLE) {
                continue;
            }
            double similarity = Math.min(1.0, c.similarity());
            String text = String.format(Locale.ROOT, "a similar crash, \"%s\" (bundle #%d, %d%% alike: %s), was confirmed as this cause",
                    c.bundleName(), c.bundleId(), Math.round(similarity * 100),
                    String.join(", ", c.shared().stream().limit(4).toList()));
            ctx.addEvidence(c.articleId(), new Evidence("confirmed-crash-" + c.bundleId(), text, MAX_WEIGHT * similarity, true,
                    c.sources()), false);
        }
    }
}
