package dev.crashlab.fact;

import java.util.List;

/**
 * What a finished reproduction job showed about the bundle's crash: the reporter's convolutions replayed on a
 * lab machine (or the CPU reference), under the reporter's memory where the job capped it.
 *
 * <p>NOTE: this fact is not read from an artifact: its source is the job ({@code artifact} = {@code repro job #N},
 * {@code line} = the job id), so the report can tell replayed evidence from what the bundle itself said.
 *
 * @param jobId the reproduction job
 * @param status how the job ended: {@code passed}, {@code failed}, {@code crashed}, {@code timed-out}
 * @param backend {@code cpu} or {@code cuda}
 * @param device the device it ran on, as the backend named it
 * @param memoryCapBytes the memory cap that emulated the reporter's card; 0 for none
 * @param outOfMemory whether some layer ran out of memory (under the cap, or on the device)
 * @param tdrRisk whether some GPU pass took longer than the Windows TDR default of 2 s
 * @param numericMismatch whether some layer's outputs differed from the CPU oracle beyond the dtype's tolerance
 *     (on a healthy lab GPU that is a replay defect, not the reporter's fault)
 * @param detail the first failing layer and its failure in words; null when every layer passed
 * @param exceedsReporterMemory whether the replayed batch's memory estimate does not fit what the reporter's card had
 *     free (false also when no card was known)
 * @param exceedsWatchdog whether a replayed pass needs more than the 2 s TDR default on the reporter's GPU at its
 *     peak throughput (a lower bound; false also when the GPU's throughput is unknown)
 * @param memoryFinding the memory verdict in words, or null
 * @param timeFinding the time verdict in words, or null
 */
public record ReplayOutcome(long jobId, String status, String backend, String device, long memoryCapBytes,
        boolean outOfMemory, boolean tdrRisk, boolean numericMismatch, String detail, boolean exceedsReporterMemory,
        boolean exceedsWatchdog, String memoryFinding, String timeFinding, List<SourceRef> sources)
        implements GpuFact {

    public ReplayOutcome {
        sources = List.copyOf(sources);
    }

    @Override
    public ReplayOutcome withSources(List<SourceRef> s) {
        return new ReplayOutcome(jobId, status, backend, device, memoryCapBytes, outOfMemory, tdrRisk, numericMismatch,
                detail, exceedsReporterMemory, exceedsWatchdog, memoryFinding, timeFinding, s);
    }
}
