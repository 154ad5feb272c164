package dev.crashlab.fact;

import java.util.List;

/**
 * Who held one GPU's memory when the job failed to allocate on it: derived by the diagnosis (never by a parser) from a
 * GPU snapshot's process list ({@code nvidia-smi}'s Processes table, {@code -q} or {@code -q -x}) and the job's own
 * output (its allocation failure, and the process id it printed where it printed one). Only made when the job's output
 * shows a GPU allocation failure.
 *
 * <p>The snapshot lists processes by id; which one is the job's is told, most surely first, by {@code basis}:
 * {@code pid} (the job's output names its process id, e.g. torchrun's {@code exitcode : 1 (pid: N)}, and the snapshot
 * lists that id: the rest are other processes, exactly); {@code program} (no such id, the job is a Python program, a
 * single GPU is listed, and these compute processes are not Python interpreters: another program's); {@code count}
 * (no such id, a single GPU: every listed compute process but the largest, a lower bound, since at most one of them
 * is the failing process). Where a single compute process is listed and no id says whose it is, nothing is made:
 * it may be the job itself.
 *
 * @param gpuIndex the GPU's index in the snapshot (null where it did not number it)
 * @param totalMiB the GPU's total memory, null where the snapshot did not show it
 * @param computeProcesses the compute processes the snapshot lists on this GPU
 * @param jobPid the job's process id as its output printed it and the snapshot lists it (basis {@code pid}), else null
 * @param jobMiB the memory the job's process held (basis {@code pid}), else null
 * @param jobPercent {@code jobMiB} in whole percent of {@code totalMiB}, else null
 * @param othersMiB the memory other processes held (at least)
 * @param othersPercent {@code othersMiB} in whole percent of {@code totalMiB}, null without a total
 * @param others the other processes, as {@code name (pid N, M MiB)}, largest first
 * @param basis {@code pid}, {@code program} or {@code count} (above)
 * @param sources the snapshot's process lines, the job's allocation failure and the line that named its id
 */
public record GpuMemoryHeld(Integer gpuIndex, Long totalMiB, Integer computeProcesses, Long jobPid, Long jobMiB,
        Integer jobPercent, Long othersMiB, Integer othersPercent, String others, String basis, List<SourceRef> sources)
        implements GpuFact {

    public GpuMemoryHeld {
        sources = List.copyOf(sources);
    }

    @Override
    public GpuMemoryHeld withSources(List<SourceRef> s) {
        return new GpuMemoryHeld(gpuIndex, totalMiB, computeProcesses, jobPid, jobMiB, jobPercent, othersMiB,
                othersPercent, others, basis, s);
    }
}
