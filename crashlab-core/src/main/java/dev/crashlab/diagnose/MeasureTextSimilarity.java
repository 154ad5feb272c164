package dev.crashlab.diagnose;

import dev.crashlab.fact.EnvironmentFact;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.SourceRef;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Measures how similar each article is to the bundle's error lines (the facts' source lines and lines that
 * read like errors): a weak signal that breaks ties and ranks bundles no matcher recognises.
 */
final class MeasureTextSimilarity implements Rule {

    private static final Pattern ERRORISH = Pattern.compile(
            "(?i)error|fail|exception|fatal|abort|killed|could not|cannot|can't|unable|not found|exit code|status|"
                    + "out of memory|illegal|segmentation|core dumped|crash|stopped|warning");

    /** The most lines sent as the similarity query. */
    static final int MAX_LINES = 200;

    /**
     * Tells whether a fact describes the machine rather than what happened to the job: a GPU and the processes on it,
     * or anything a GPU snapshot says (its driver and CUDA versions). Such lines are no error lines, and a healthy
     * snapshot taken apart from the crash (an idle {@code nvidia-smi}) must not move the ranking through them.
     * NOTE: an environment listing's versions stay in: they are the job's software, and the words a version
     * mismatch is told by.
     */
    static boolean describesMachine(Fact f, Set<String> snapshots) {
        if (f instanceof GpuDevice || f instanceof GpuProcess) {
            return true;
        }
        return f instanceof EnvironmentFact && !f.sources().isEmpty()
                && f.sources().stream().allMatch(s -> snapshots.contains(s.artifact()));
    }

    @Override
    public String name() {
        return "measure-text-similarity";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.similarity != TextSimilarity.NONE;
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        Set<String> lines = new LinkedHashSet<>();
        Set<String> snapshots = GpuSnapshots.artifacts(ctx.input.facts());
        for (Fact f : ctx.input.facts()) {
            if (describesMachine(f, snapshots)) {
                continue;
            }
            for (SourceRef s : f.sources()) {
                lines.add(s.text());
            }
        }
        for (TextLine l : ctx.input.lines()) {
            if (lines.size() >= MAX_LINES) {
                break;
            }
            if (l.text().length() < 600 && ERRORISH.matcher(l.text()).find()) {
                lines.add(l.text());
            }
        }
        if (!lines.isEmpty()) {
            ctx.similarityScores.putAll(ctx.similarity.similarity(List.copyOf(lines).subList(0, Math.min(lines.size(), MAX_LINES))));
        }
    }
}
