/** Server metrics beyond Quarkus's own: waits by what and route, and latency histograms (README "Metrics"). */
package dev.crashlab.metrics;
