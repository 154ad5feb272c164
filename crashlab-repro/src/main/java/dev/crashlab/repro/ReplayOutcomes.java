package dev.crashlab.repro;

import dev.crashlab.fact.ReplayOutcome;
import dev.crashlab.fact.SourceRef;
import java.util.List;
import java.util.Optional;

/**
 * Turns a finished reproduction job's result into a {@link ReplayOutcome} fact, so that a replay becomes
 * evidence in the bundle's diagnosis (an out-of-memory reproduced under the reporter's cap raises
 * {@code gpu-oom}; a pass over 2 s on a GPU raises {@code tdr-timeout}; so do the findings' verdicts on the reporter's
 * card: a batch that does not fit it, a pass that needs more than 2 s on it).
 *
 * <p>NOTE: a job whose child crashed before writing a replay ({@link JobResult#replay()} null) still states how it
 * ended.
 */
public final class ReplayOutcomes {

    private ReplayOutcomes() {}

    /** The outcome of a finished job, or empty for a job without an end state or a result. */
    public static Optional<ReplayOutcome> of(long jobId, String state, JobResult result) {
        if (state == null || result == null) {
            return Optional.empty();
        }
        ReplayResult replay = result.replay();
        List<ReplayResult.LayerResult> layers = replay == null ? List.of() : replay.layers();
        boolean oom = false;
        boolean tdr = false;
        boolean mismatch = false;
        String detail = null;
        for (ReplayResult.LayerResult layer : layers) {
            ReplayResult.LayerStatus status = layer.status();
            String label = status == null ? "" : status.label();
            oom |= status == ReplayResult.LayerStatus.OUT_OF_MEMORY;
            mismatch |= status == ReplayResult.LayerStatus.MISMATCH;
            tdr |= layer.tdrRisk();
            if (detail == null && (status != ReplayResult.LayerStatus.PASSED || layer.tdrRisk())) {
                detail = (layer.name() == null ? "a layer" : layer.name()) + ": "
                        + (layer.tdrRisk() && status == ReplayResult.LayerStatus.PASSED ? "a pass took longer than 2 s"
                                : label + (layer.message() == null ? "" : " (" + layer.message() + ")"));
            }
        }
        if (detail == null && !state.equals("passed")) {
            String reason = replay == null ? null : replay.reason();
            JobResult.Child child = result.child();
            detail = reason != null ? reason
                    : child == null ? null : "the child " + (child.ending() == null ? "ended" : child.ending());
        }
        String backend = replay != null && replay.backend() != null ? replay.backend() : result.backend();
        String device = replay == null ? null : replay.device();
        long cap = replay == null ? 0 : replay.memoryCapBytes();
        ReplayFindings findings = replay == null ? null : replay.findings();
        boolean tooBig = findings != null && Boolean.TRUE.equals(findings.exceedsReporterMemory());
        boolean overWatchdog = findings != null && Boolean.TRUE.equals(findings.exceedsWatchdog());
        String memoryFinding = findings == null ? null : findings.memory();
        String timeFinding = findings == null ? null : findings.time();
        String summary = "repro job #" + jobId + " " + state + " on " + (device != null ? device : backend)
                + (cap > 0 ? " under a " + (cap >> 20) + " MiB cap" : "") + (detail != null ? ": " + detail : "");
        return Optional.of(new ReplayOutcome(jobId, state, backend, device, cap, oom, tdr, mismatch, detail, tooBig,
                overWatchdog, memoryFinding, timeFinding, List.of(new SourceRef("repro job #" + jobId, jobId, summary))));
    }
}
