package dev.crashlab.diagnose;

import dev.crashlab.kb.KbArticle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Ranks the articles by score and calibrates a confidence: each score's share of the total, with room
 * left for "none of these" that shrinks as the best score nears 1, so a lone weak match is not shown
 * as a sure thing.
 */
final class RankHypotheses implements Rule {

    /** Scores at or below this are noise (prior and similarity alone), not hypotheses worth showing first. */
    static final int MAX_HYPOTHESES = 10;

    @Override
    public String name() {
        return "rank-hypotheses";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return !ctx.scores.isEmpty();
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        lift(ctx);
        List<KbArticle> order = new ArrayList<>(ctx.kb.articles());
        order.sort(Comparator.comparingDouble((KbArticle a) -> -ctx.scores.getOrDefault(a.id(), 0.0)).thenComparing(KbArticle::id));
        double best = order.isEmpty() ? 0 : ctx.scores.getOrDefault(order.getFirst().id(), 0.0);
        double total = 0;
        for (KbArticle a : order) {
            double s = ctx.scores.getOrDefault(a.id(), 0.0);
            total += s * s;
        }
        double unexplained = Math.max(0, 1 - best);
        List<Hypothesis> out = new ArrayList<>();
        for (KbArticle a : order.subList(0, Math.min(MAX_HYPOTHESES, order.size()))) {
            double s = ctx.scores.getOrDefault(a.id(), 0.0);
            double confidence = total + unexplained <= 0 ? 0 : s * s / (total + unexplained);
            out.add(new Hypothesis(a.id(), a.title(), a.category(), round(confidence), round(s),
                    List.copyOf(ctx.evidence.getOrDefault(a.id(), Map.of()).values()),
                    List.copyOf(ctx.against.getOrDefault(a.id(), Map.of()).values())));
        }
        ctx.ranked = out;
    }

    /**
     * A special case with specific evidence of its own says more than the cause it specializes (Xid 79 is a
     * hardware fault, and says which): it is scored just above its parent, which otherwise wins by adding up
     * the general matchers both share. Only a close second is lifted (at least 0.6 of the parent's score).
     */
    static void lift(DiagnosisContext ctx) {
        for (KbArticle a : ctx.kb.articles()) {
            String parent = a.specializes();
            if (parent == null || !ctx.scores.containsKey(parent) || !ctx.scores.containsKey(a.id())) {
                continue;
            }
            boolean specific = ctx.evidence.getOrDefault(a.id(), Map.of()).values().stream().anyMatch(Evidence::specific);
            double mine = ctx.scores.get(a.id());
            double theirs = ctx.scores.get(parent);
            if (specific && mine <= theirs && mine >= 0.6 * theirs) {
                ctx.scores.put(a.id(), theirs + 0.001);
            }
        }
    }

    private static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
