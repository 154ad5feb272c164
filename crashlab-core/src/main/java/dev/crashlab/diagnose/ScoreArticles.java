package dev.crashlab.diagnose;

import dev.crashlab.kb.KbArticle;
import java.util.Map;
import java.util.Set;

/**
 * Scores every article (README "How scores combine"): noisy-OR of the specific evidence, a smaller share for
 * consistent evidence, counter-evidence multiplying by {@code (1 - w)}, and the prior and text similarity
 * as small terms that break ties.
 */
final class ScoreArticles implements Rule {

    /** How much of the remaining headroom consistent evidence can fill. */
    static final double CONSISTENT_SHARE = 0.4;
    /** The weight of the text similarity (in [0, 1]) in the score. */
    static final double SIMILARITY_WEIGHT = 0.12;
    /** The share of its weight context evidence keeps when an article has no other evidence (never the only evidence). */
    static final double CONTEXT_ALONE = 0.25;
    /** The share of its weight context evidence keeps beside other evidence: it makes a cause plausible, no more. */
    static final double CONTEXT_BESIDE = 0.5;
    /** The weight of the prior, relative to the largest prior in the KB. */
    static final double PRIOR_WEIGHT = 0.04;

    /**
     * Tells whether the evidence is context read only from a GPU snapshot (an {@code nvidia-smi} of the machine, idle
     * or of another machine): it is shown, but what the machine is, seen apart from the job, does not rank a cause.
     */
    static boolean onlyFromSnapshot(Evidence e, Set<String> snapshots) {
        return e.context() && !e.sources().isEmpty() && e.sources().stream().allMatch(s -> snapshots.contains(s.artifact()));
    }

    @Override
    public String name() {
        return "score-articles";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return !ctx.kb.articles().isEmpty();
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        double maxPrior = ctx.kb.articles().stream().mapToDouble(KbArticle::prior).max().orElse(1);
        Set<String> snapshots = GpuSnapshots.artifacts(ctx.input.facts());
        for (KbArticle a : ctx.kb.articles()) {
            double missSpecific = 1;
            double missConsistent = 1;
            var found = ctx.evidence.getOrDefault(a.id(), Map.of()).values().stream()
                    .filter(e -> !onlyFromSnapshot(e, snapshots)).toList();
            boolean onlyContext = found.stream().allMatch(Evidence::context);
            for (Evidence e : found) {
                if (e.specific()) {
                    missSpecific *= 1 - e.weight();
                } else {
                    missConsistent *= 1 - e.weight() * (!e.context() ? 1 : onlyContext ? CONTEXT_ALONE : CONTEXT_BESIDE);
                }
            }
            double specific = 1 - missSpecific;
            double consistent = 1 - missConsistent;
            double score = specific + (1 - specific) * CONSISTENT_SHARE * consistent;
            double keep = 1;
            for (Evidence e : ctx.against.getOrDefault(a.id(), Map.of()).values()) {
                keep *= 1 - e.weight();
            }
            double tie = PRIOR_WEIGHT * a.prior() / maxPrior + SIMILARITY_WEIGHT * ctx.similarityScores.getOrDefault(a.id(), 0.0);
            ctx.scores.put(a.id(), (score + tie) * keep);
        }
    }
}
