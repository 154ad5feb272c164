/**
 * Reproduction (plain Java): the spec and its JSON, the memory estimator, the convolution backends (CPU reference, JCuda in repro/cuda), replay and its result, the worker and child JVM (repro/worker) and benchmarks (repro/bench). Owns the reproduction wire model: ReproSpec, ReplayResult, ReplayFindings, MemoryEstimate and JobResult are the records every hop carries (their JSON shape is on the records), and ReproJson is the one mapper outside the server.
 */
package dev.crashlab.repro;
