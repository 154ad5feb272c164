package dev.crashlab.diagnose.service;

import dev.crashlab.bundle.BundleStatus;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.diagnose.Ask;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisDocument;
import dev.crashlab.fact.SourceRef;
import java.time.Instant;
import java.util.List;

/**
 * A bundle's diagnosis as the API serves it: the bundle's reading status and progress, when the diagnosis was computed,
 * then every field of the stored {@link DiagnosisDocument}.
 *
 * @param computedAt when the diagnosis served was computed
 * @param recomputed whether this request computed it (the stored one was missing or stale)
 */
public record DiagnosisView(long bundleId, BundleStatus status, int artifactsRead, int artifactCount, Instant computedAt,
                            boolean recomputed, String verdict, List<String> equals,
                            List<DiagnosisDocument.HypothesisDocument> hypotheses, List<Ask> ask,
                            List<Diagnosis.CompatView> compat, List<String> notes, String kbFingerprint, int otherEventCount,
                            List<SourceRef> otherEvents) {

    static DiagnosisView of(BundleView bundle, Instant computedAt, boolean recomputed, DiagnosisDocument d) {
        return new DiagnosisView(bundle.id(), bundle.status(), bundle.progress().artifactsRead(), bundle.progress().artifacts(),
                computedAt, recomputed, d.verdict(), orEmpty(d.equals()), orEmpty(d.hypotheses()), orEmpty(d.ask()),
                orEmpty(d.compat()), orEmpty(d.notes()), d.kbFingerprint(), d.otherEventCount(), orEmpty(d.otherEvents()));
    }

    // a row stored by an older version may lack a list: served empty
    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
