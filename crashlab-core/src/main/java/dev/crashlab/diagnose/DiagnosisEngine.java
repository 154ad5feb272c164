package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatData;
import dev.crashlab.kb.KnowledgeBase;

/** Diagnoses bundles against one knowledge base and compat data: runs the rule pipeline and returns ranked hypotheses. */
public final class DiagnosisEngine {

    private final KnowledgeBase kb;
    private final CompatData compat;
    private final TextSimilarity similarity;

    /**
     * @param kb the articles
     * @param compat the compat tables
     * @param similarity the article text similarity (e.g. {@code search.KbIndex}), or {@link TextSimilarity#NONE}
     */
    public DiagnosisEngine(KnowledgeBase kb, CompatData compat, TextSimilarity similarity) {
        this.kb = kb;
        this.compat = compat;
        this.similarity = similarity;
    }

    /** The knowledge base in use. */
    public KnowledgeBase kb() {
        return kb;
    }

    /** Diagnoses one bundle. */
    public Diagnosis diagnose(DiagnosisInput input) {
        RelevantEvents.Split split = RelevantEvents.split(GpuMemoryHolders.derive(JobPlatform.settle(input)));
        DiagnosisContext ctx = new DiagnosisContext(split.relevant(), kb, compat, similarity);
        ctx.allInput = input;
        DiagnosisRules.run(DiagnosisRules.PIPELINE, ctx);
        VerdictPolicy.Outcome verdict = VerdictPolicy.decide(ctx.ranked, kb::counts);
        return new Diagnosis(ctx.ranked, ctx.ask, ctx.compat.stream().map(Diagnosis.CompatView::of).toList(), ctx.notes,
                kb.fingerprint(), split.other(), split.otherCount(), verdict.verdict(), verdict.equals());
    }
}
