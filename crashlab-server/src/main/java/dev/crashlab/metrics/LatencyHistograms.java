package dev.crashlab.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * Publishes request latencies and waits as histograms ({@code _bucket} series at fixed bounds from 5 ms to 30 s), so
 * that a scraper computes percentiles and "share under 1 s" per route over any window and across servers, which a
 * mean or a percentile computed in one server cannot give.
 */
@Singleton
public class LatencyHistograms {

    /** The buckets' upper bounds, in nanoseconds: 5 ms to 30 s (Prometheus adds {@code +Inf}). */
    static final double[] BOUNDS = java.util.stream.LongStream.of(5, 10, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000)
            .mapToDouble(ms -> Duration.ofMillis(ms).toNanos()).toArray();

    @Produces
    @Singleton
    MeterFilter histograms() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() != Meter.Type.TIMER
                        || !(id.getName().equals("http.server.requests") || id.getName().equals(Waits.METER))) {
                    return config;
                }
                return DistributionStatisticConfig.builder()
                        .serviceLevelObjectives(BOUNDS)
                        .build()
                        .merge(config);
            }
        };
    }
}
