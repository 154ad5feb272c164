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

    /** How strongly the evidence points here, in words a person reads (README, "How to read a report"). */
    public enum Strength {
        /** Specific evidence that alone (or together) is near-conclusive, and little against. */
        STRONG,
        /** Some specific evidence. */
        MODERATE,
        /** Only evidence that is consistent with the cause, beyond context. */
        WEAK,
        /** No evidence, or only context (the OS, the card's mode): a guess from the prior and text similarity. */
        NONE;

        /** The word in JSON and on the page. */
        public String written() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Specific evidence at or above this combined weight (noisy-OR) is strong. */
    static final double STRONG_AT = 0.8;
    /** Counter-evidence at or above this weight keeps a hypothesis from being strong. */
    static final double STRONG_AGAINST = 0.5;

    /**
     * The strength a report shows for this cause, ranked {@code rank} (0 = top) in diagnosis {@code d}: its
     * {@link #strength()}, but never {@code strong} for a cause the verdict does not back (any cause below the top
     * one, or every cause of a verdict other than {@code diagnosed}): "strong evidence" beside an answer the verdict
     * calls a guess, or under the answer it chose, reads as the opposite of what the report means.
     */
    public Strength shownStrength(Diagnosis d, int rank) {
        Strength s = strength();
        boolean backed = rank == 0 && d.verdict() == Diagnosis.Verdict.DIAGNOSED;
        return s == Strength.STRONG && !backed ? Strength.MODERATE : s;
    }

    /** The strength of this hypothesis's evidence. */
    public Strength strength() {
        double miss = 1;
        boolean anySpecific = false;
        for (Evidence e : evidence) {
            if (e.specific()) {
                anySpecific = true;
                miss *= 1 - e.weight();
            }
        }
        if (anySpecific) {
            boolean strongAgainst = against.stream().anyMatch(e -> e.weight() >= STRONG_AGAINST);
            return 1 - miss >= STRONG_AT && !strongAgainst ? Strength.STRONG : Strength.MODERATE;
        }
        return evidence.stream().allMatch(Evidence::context) ? Strength.NONE : Strength.WEAK;
    }
}
