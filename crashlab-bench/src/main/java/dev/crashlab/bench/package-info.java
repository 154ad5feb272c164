/**
 * Benchmark tools behind scripts/bench (BenchCli: bench-diagnose, bench-crashes; ReproBench and ReproAB for the convolution engine; PgPeer, the PostgreSQL peer). Never part of the product.
 */
package dev.crashlab.bench;
