package dev.crashlab.fact;

import java.util.List;

/**
 * One process using a GPU, as nvidia-smi listed it.
 *
 * @param gpuIndex the GPU's index (null where only a bus id or nothing identified it)
 * @param pid the process id
 * @param type {@code C} (compute), {@code G} (graphics), {@code C+G}, {@code M}...; null where not shown
 * @param processName the name or path as printed (Windows paths may be elided with {@code ...})
 * @param usedMemoryMiB GPU memory used in MiB; null where not shown or {@code N/A} (WDDM)
 */
public record GpuProcess(Integer gpuIndex, Long pid, String type, String processName, Long usedMemoryMiB,
        List<SourceRef> sources) implements GpuFact {

    public GpuProcess {
        sources = List.copyOf(sources);
    }

    @Override
    public GpuProcess withSources(List<SourceRef> s) {
        return new GpuProcess(gpuIndex, pid, type, processName, usedMemoryMiB, s);
    }
}
