package dev.crashlab.bench;

import java.util.Arrays;
import java.util.List;

/** Percentiles of timings in nanoseconds, as the hidden bench commands print them (milliseconds). */
final class BenchStats {

    private BenchStats() {}

    /** The {@code p}-th percentile (nearest rank) of the timings, in milliseconds. */
    static double percentileMillis(List<Long> nanos, int p) {
        long[] a = nanos.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        int i = (int) Math.ceil(p / 100.0 * a.length) - 1;
        return a[Math.max(0, Math.min(a.length - 1, i))] / 1e6;
    }
}
