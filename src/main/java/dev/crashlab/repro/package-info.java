/**
 * Reproduction (plain Java): the spec and its JSON, the memory estimator, the convolution backends (CPU reference, JCuda in repro/cuda), replay and its result, the worker and child JVM (repro/worker) and benchmarks (repro/bench).
 */
package dev.crashlab.repro;
