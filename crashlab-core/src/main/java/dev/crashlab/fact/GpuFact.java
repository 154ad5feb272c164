package dev.crashlab.fact;

/**
 * What the GPUs and their driver reported: devices, processes, lost GPUs, Xid events.
 *
 * <p>NOTE: non-sealed while its parsers are being written; seal it once the family is complete.
 */
public non-sealed interface GpuFact extends Fact {}
