package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatOutcome;
import java.util.List;

/**
 * A bundle's diagnosis: ranked hypotheses (best first), what to upload next, the compat checks, and
 * notes from rules that could not run.
 *
 * @param hypotheses articles with evidence, best first
 * @param ask the artifact that would best separate the top two (empty when nothing would)
 * @param compat every compatibility check's outcome
 * @param notes rule failures and regexes that ran out of time
 * @param kbFingerprint the fingerprint of the KB and compat data used
 */
public record Diagnosis(List<Hypothesis> hypotheses, List<Ask> ask, List<CompatView> compat, List<String> notes,
        String kbFingerprint) {

    public Diagnosis {
        hypotheses = List.copyOf(hypotheses);
        ask = List.copyOf(ask);
        compat = List.copyOf(compat);
        notes = List.copyOf(notes);
    }

    /**
     * A compat outcome as the API shows it.
     *
     * @param check the check id
     * @param result ok, mismatch or unknown
     * @param explanation the sentence
     * @param sources the source lines of the facts it used
     */
    public record CompatView(String check, String result, String explanation, List<dev.crashlab.fact.SourceRef> sources) {
        static CompatView of(CompatOutcome o) {
            return new CompatView(o.check(), o.result().written(), o.explanation(),
                    o.facts().stream().flatMap(f -> f.sources().stream().limit(2)).limit(6).toList());
        }
    }
}
