package dev.crashlab.diagnose;

import dev.crashlab.fact.SourceRef;
import java.util.List;

/**
 * The JSON that {@link DiagnosisJson} writes, as records: what the server reads a stored diagnosis back into, so that
 * the API (and its OpenAPI document) describes every field. {@code DiagnosisDocumentTest} checks that the two agree
 * field for field.
 *
 * @param verdict {@code diagnosed}, {@code weak} or {@code no-evidence}
 * @param equals article ids the top cause equals (strict special cases counted as the same answer)
 * @param otherEventCount Windows events set aside as not about this crash
 * @param otherEvents where those events are
 */
public record DiagnosisDocument(String verdict, List<String> equals, List<HypothesisDocument> hypotheses, List<Ask> ask,
                                List<Diagnosis.CompatView> compat, List<String> notes, String kbFingerprint,
                                int otherEventCount, List<SourceRef> otherEvents) {

    /**
     * One ranked cause.
     *
     * @param strength {@code strong}, {@code moderate}, {@code weak} or {@code none}, as shown (capped by the verdict)
     */
    public record HypothesisDocument(String id, String title, String category, String strength, double confidence,
                                     double score, List<EvidenceDocument> evidence, List<EvidenceDocument> against) {}

    /**
     * One piece of evidence for or against a cause.
     *
     * @param source the first of {@code sources}, or null when there is none
     * @param context true for context (the OS, a version present) rather than what happened
     */
    public record EvidenceDocument(String matcher, String text, double weight, boolean specific, boolean context,
                                   SourceRef source, List<SourceRef> sources) {}
}
