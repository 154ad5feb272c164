package dev.crashlab.config;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** How long bundles are kept and how much each user may store ({@code crashlab.retention.*}; docs/operators.md). */
@ConfigMapping(prefix = "crashlab.retention")
public interface RetentionConfig {

    /**
     * Bundles uploaded more than this many days ago are deleted, unless pinned or their cause was confirmed;
     * 0 keeps every bundle.
     */
    @WithDefault("0")
    int days();

    /** What one user's bundles may add up to (uploaded bytes); absent: no limit. */
    Optional<MemorySize> quota();

    /** How often the retention sweep runs (the first run is this long after start). */
    @WithDefault("1h")
    Duration sweepInterval();

    /** The most bundles one sweep deletes (the next sweep goes on). */
    @WithDefault("1000")
    int maxDeletesPerSweep();
}
