package dev.crashlab.compat;

import dev.crashlab.fact.Fact;

/**
 * One value the bundle states (a version, a GPU name) and the fact that states it, so a check's
 * explanation can link back to the source line.
 *
 * @param value the value as stated
 * @param fact the fact it came from
 */
public record Observed(String value, Fact fact) {}
