package dev.crashlab.diagnose;

import java.util.List;

/**
 * The diagnosis pipeline: every rule, in the order they run. Each rule's class comment says why it exists.
 * A rule that throws becomes a note and the pipeline goes on.
 */
final class DiagnosisRules {

    /** The rules, in order: read the stack, collect evidence, score, rank, ask. */
    static final List<Rule> PIPELINE = List.of(
            new RunCompatChecks(),
            new MatchFactMatchers(),
            new MatchTextMatchers(),
            new MatchCompatMatchers(),
            new MatchAllMatchers(),
            new PlatformCounterEvidence(),
            new ConfirmedCrashEvidence(),
            new MeasureTextSimilarity(),
            new ScoreArticles(),
            new RankHypotheses(),
            new AskForArtifact());

    private DiagnosisRules() {}

    /** Runs the rules over a context; failures become notes. */
    static void run(List<Rule> rules, DiagnosisContext ctx) {
        for (Rule r : rules) {
            try {
                if (r.applies(ctx)) {
                    long t0 = System.nanoTime();
                    r.apply(ctx);
                    ctx.log.add(r.name() + " " + (System.nanoTime() - t0) / 1000 + " us");
                }
            } catch (RuntimeException | StackOverflowError e) {
                ctx.note("rule " + r.name() + " failed: " + e);
            }
        }
    }
}
