package dev.crashlab.diagnose;

import java.util.List;

/**
 * One ranked root cause with its evidence.
 *
 * @param id the KB article id
 * @param title the article title
 * @param category the article category
 * @param confidence calibrated over the articles, in [0, 1]
 * @param score the raw score before calibration (for debugging and eval)
 * @param evidence what points at it
 * @param against what points away from it
 */
public record Hypothesis(String id, String title, String category, double confidence, double score,
        List<Evidence> evidence, List<Evidence> against) {
    public Hypothesis {
        evidence = List.copyOf(evidence);
        against = List.copyOf(against);
    }
}
