/**
 * The offline command line (picocli): serve, facts, diagnose, eval, evtx, repro, worker and the benchmarks. Plain Java: it loads the core without a container or a database, and may depend on every core package (nothing depends on it).
 */
package dev.crashlab.cli;
