package dev.crashlab.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Configures reproduction jobs and workers ({@code crashlab.lab.*}; env {@code CRASHLAB_LAB_*}). */
public interface LabConfig {

    /** Whether the server runs a worker of its own (in child JVMs, never in its own process). */
    @WithDefault("true")
    boolean localWorker();

    /** The local worker's backend: {@code cpu} runs anywhere; {@code cuda} needs a GPU on the server. */
    @WithDefault("cpu")
    String localBackend();

    /** How long a claim holds without a heartbeat before the job goes back to the queue. */
    @WithDefault("30s")
    Duration lease();

    /** How many workers may lose a job (stop heart-beating) before it fails. */
    /** Most jobs that may wait in the queue at once; creating one more is refused (409) until some run. */
    @WithDefault("1000")
    int maxQueued();

    /**
     * Most jobs one user (or token without an owner) may have waiting at once; one more is refused (429)
     * until some run or are cancelled, so one busy user cannot fill the queue for everyone.
     */
    @WithDefault("100")
    int maxQueuedPerUser();

    @WithDefault("3")
    int maxAttempts();

    /** How often expired leases are looked for. */
    @WithDefault("5s")
    Duration sweepInterval();

    /** The local worker's wall-clock limit per job. */
    @WithDefault("10m")
    Duration timeLimit();

    /** The local worker's child heap ({@code -Xmx}). */
    @WithDefault("2g")
    String childMaxHeap();

    /** The local worker's pause between claims while the queue is empty. */
    @WithDefault("1s")
    Duration pollInterval();

    /** A worker not seen for this long is listed as offline. */
    @WithDefault("2m")
    Duration workerOffline();
}
