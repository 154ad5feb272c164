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
 * @param otherEvents Windows events of the bundle that are not about this crash (other programs, other times),
 *     at most 20 of them, shown apart and never used as evidence
 * @param otherEventCount how many such events there were
 * @param verdict how sure the answer is, decided by {@link VerdictPolicy} from the evidence
 * @param equals for a {@code weak} verdict, the two or three causes shown as equals (best first); empty otherwise
 */
public record Diagnosis(List<Hypothesis> hypotheses, List<Ask> ask, List<CompatView> compat, List<String> notes,
        String kbFingerprint, List<dev.crashlab.fact.SourceRef> otherEvents, int otherEventCount, Verdict verdict,
        List<String> equals) {

    public Diagnosis {
        hypotheses = List.copyOf(hypotheses);
        ask = List.copyOf(ask);
        compat = List.copyOf(compat);
        notes = List.copyOf(notes);
        otherEvents = List.copyOf(otherEvents);
        equals = List.copyOf(equals);
    }

    /** The answer in one word: whether the bundle's own evidence names a cause. */
    public enum Verdict {
        /** The top cause has decisive evidence and no sibling cause has specific evidence close behind it. */
        DIAGNOSED,
        /** Some cause has evidence, but not enough to tell the first few apart: they are shown as equals. */
        WEAK,
        /** Nothing in the bundle is evidence for any cause, context aside (an empty log, an image, a binary). */
        NO_EVIDENCE;

        /** The word in JSON and on the page: {@code diagnosed}, {@code weak}, {@code no-evidence}. */
        public String written() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
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
