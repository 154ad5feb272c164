package dev.crashlab.fact;

/**
 * What Windows recorded about the crash: Event Viewer events and their typed fields.
 *
 * <p>NOTE: non-sealed while its parsers are being written; seal it once the family is complete.
 */
public non-sealed interface WindowsFact extends Fact {}
