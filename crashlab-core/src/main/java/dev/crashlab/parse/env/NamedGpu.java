package dev.crashlab.parse.env;

import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.SourceRef;
import java.util.List;
import java.util.Map;

/** Builds the {@link GpuDevice} of a GPU that a listing names but does not describe further. */
final class NamedGpu {

    private NamedGpu() {}

    /** Returns a GPU known by its name and, where stated, its index and total memory. */
    static GpuDevice of(Integer index, String name, Long memoryTotalMiB, SourceRef ref) {
        return new GpuDevice(index, name, null, null, memoryTotalMiB, null, null, null, null, null, null, null, null,
                null, null, null, null, null, List.of(), Map.of(), List.of(ref));
    }
}
