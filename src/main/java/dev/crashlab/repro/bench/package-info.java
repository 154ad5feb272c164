/**
 * Reproduction benchmarks run by scripts/bench repro. Plain Java.
 */
package dev.crashlab.repro.bench;
