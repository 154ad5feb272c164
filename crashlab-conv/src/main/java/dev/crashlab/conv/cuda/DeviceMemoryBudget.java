package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvBackend.OutOfMemory;

/**
 * Keeps the books of device memory a backend holds, refusing an allocation that would take it over the cap
 * that emulates the reporter's card, and remembering the peak.
 *
 * <p>NOTE: each allocation is charged rounded up to {@link #ALIGNMENT} bytes, the granularity at which
 * {@code cuMemAlloc} hands out addresses; the driver's own page-level overhead and the context's memory are
 * not charged (the cap is on tensors and workspace, as {@code ConvBackend.memoryCap} says).
 */
final class DeviceMemoryBudget {

    /** {@code cuMemAlloc} returns addresses aligned to at least 256 bytes (CUDA Driver API reference). */
    static final long ALIGNMENT = 256;

    private long cap;
    private long used;
    private long peak;

    /** Sets the cap in bytes; 0 removes it. */
    void cap(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a memory cap cannot be negative: " + bytes);
        }
        cap = bytes;
    }

    long cap() {
        return cap;
    }

    /** What an allocation of {@code bytes} is charged. */
    static long charged(long bytes) {
        return Math.ceilDiv(bytes, ALIGNMENT) * ALIGNMENT;
    }

    /**
     * Charges an allocation, or refuses it the way the reporter's framework would have been refused.
     *
     * @param what the tensor, for the message ({@code y (output)})
     * @throws OutOfMemory when a cap is set and the allocation does not fit under it
     */
    void reserve(String what, long bytes) throws OutOfMemory {
        long charge = charged(bytes);
        if (cap > 0 && used + charge > cap) {
            throw new OutOfMemory(what, bytes, cap - used);
        }
        used += charge;
        peak = Math.max(peak, used);
    }

    /** Returns an allocation of {@code bytes} (as it was reserved). */
    void release(long bytes) {
        used -= charged(bytes);
        if (used < 0) {
            throw new IllegalStateException("released more device memory than was reserved");
        }
    }

    long used() {
        return used;
    }

    /** The most held at once since the last {@link #resetPeak()}. */
    long peak() {
        return peak;
    }

    void resetPeak() {
        peak = used;
    }
}
