package dev.crashlab.compat;

import dev.crashlab.fact.Fact;
import java.util.List;

/**
 * What one compatibility check concluded about a bundle, with the sentence that says why and the
 * facts it read (for source links).
 *
 * @param check the check's id ({@code cuda-vs-framework-build})
 * @param result ok, mismatch or unknown
 * @param explanation one sentence ("TF 2.4 expects CUDA 11.0; found cudart64_101.dll (10.1)")
 * @param facts the facts the conclusion rests on
 */
public record CompatOutcome(String check, Result result, String explanation, List<Fact> facts) {

    /** A check's verdict. */
    public enum Result {
        /** The versions fit. */
        OK,
        /** They do not: evidence for a compatibility cause. */
        MISMATCH,
        /** The bundle does not say enough to tell. */
        UNKNOWN;

        /** The lower-case name articles write ({@code outcome: mismatch}). */
        public String written() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public CompatOutcome {
        facts = List.copyOf(facts);
    }

    static CompatOutcome ok(String check, String why, List<Fact> facts) {
        return new CompatOutcome(check, Result.OK, why, facts);
    }

    static CompatOutcome mismatch(String check, String why, List<Fact> facts) {
        return new CompatOutcome(check, Result.MISMATCH, why, facts);
    }

    static CompatOutcome unknown(String check, String why) {
        return new CompatOutcome(check, Result.UNKNOWN, why, List.of());
    }
}
