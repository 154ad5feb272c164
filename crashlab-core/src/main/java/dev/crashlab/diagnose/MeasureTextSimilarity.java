package dev.crashlab.diagnose;

import dev.crashlab.fact.EnvironmentFact;
import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.SourceRef;
import java.util.HashSet;
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

    /**
     * The lines that state an exit status and nothing else a fact was read from. NOTE: such a line is sent as the
     * status's code and name only: its other words are the launcher's ({@code Process finished with exit code}, an
     * IDE's), the same whatever the cause, and matched an article that quotes the same launcher line with another
     * code (a bare 0xC0000005 ranked stack overflow, whose article quotes PyCharm's line with 0xC00000FD, first).
     */
    static Set<String> statusOnlyLines(List<Fact> facts) {
        Set<String> status = new HashSet<>();
        Set<String> other = new HashSet<>();
        for (Fact f : facts) {
            for (SourceRef s : f.sources()) {
                (f instanceof ExitStatus ? status : other).add(s.text());
            }
        }
        status.removeAll(other);
        return status;
    }

    /** What an exit status says of the cause: its number as printed, its NTSTATUS form and its decoded name. */
    static String statusWords(ExitStatus e) {
        StringBuilder b = new StringBuilder().append(e.code());
        if (e.hex() != null) {
            b.append(' ').append(e.hex());
        }
        if (e.name() != null) {
            b.append(' ').append(e.name());
        }
        return b.toString();
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
        Set<String> statusOnly = statusOnlyLines(ctx.input.facts());
        for (Fact f : ctx.input.facts()) {
            if (describesMachine(f, snapshots)) {
                continue;
            }
            if (f instanceof ExitStatus e && e.sources().stream().allMatch(s -> statusOnly.contains(s.text()))) {
                lines.add(statusWords(e));
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
            if (l.text().length() < 600 && !statusOnly.contains(l.text()) && ERRORISH.matcher(l.text()).find()) {
                lines.add(l.text());
            }
        }
        if (!lines.isEmpty()) {
            ctx.similarityScores.putAll(ctx.similarity.similarity(List.copyOf(lines).subList(0, Math.min(lines.size(), MAX_LINES))));
        }
    }
}
