package dev.crashlab.fact;

/**
 * What the machine and its software were: versions, framework builds, the platform.
 *
 * <p>NOTE: non-sealed while its parsers are being written; seal it once the family is complete.
 */
public non-sealed interface EnvironmentFact extends Fact {}
