package dev.crashlab.fact;

/**
 * What the model looked like: convolution layers and batch sizes, for the memory estimate and reproduction.
 *
 * <p>NOTE: non-sealed while its parsers are being written; seal it once the family is complete.
 */
public non-sealed interface ModelFact extends Fact {}
