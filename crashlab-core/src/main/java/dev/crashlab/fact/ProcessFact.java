package dev.crashlab.fact;

/**
 * What the crashed process itself said: exit statuses, exceptions, error and log lines, library load failures, memory statements.
 *
 * <p>NOTE: non-sealed while its parsers are being written; seal it once the family is complete.
 */
public non-sealed interface ProcessFact extends Fact {}
