package dev.crashlab.fact;

import java.util.List;

/**
 * A statement that memory ran out: TF's {@code OOM when allocating tensor}, PyTorch's {@code CUDA out of
 * memory. Tried to allocate ...}, {@code CUDA_ERROR_OUT_OF_MEMORY}, Python's {@code MemoryError}.
 *
 * @param where {@code gpu} or {@code host}
 * @param requested what the failed allocation asked for, as printed ({@code 2.00 GiB}, {@code shape[64,256,56,56]}), or null
 * @param total the device's total memory as printed ({@code 8.00 GiB}), or null
 * @param free the memory free at the time, as printed, or null
 * @param detail the rest of the statement that matters (allocator, device, dtype), or null
 * @param sources the line
 */
public record MemoryShortage(String where, String requested, String total, String free, String detail,
        List<SourceRef> sources) implements ProcessFact {

    public MemoryShortage {
        sources = List.copyOf(sources);
    }

    @Override
    public MemoryShortage withSources(List<SourceRef> s) {
        return new MemoryShortage(where, requested, total, free, detail, s);
    }
}
