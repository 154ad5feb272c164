package dev.crashlab.repro.jobs;

import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.worker.JobState;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import java.time.Instant;
import java.util.List;

/** Holds what the API returns for jobs and workers (rows as the UI and clients see them). */
public final class JobViews {

    private JobViews() {}

    /**
     * One job in full.
     *
     * @param spec the spec it replays (its {@code "format": 1} document on the wire); null only for a stored spec
     *     that this version no longer reads
     * @param result the replay's result and how the child ended, once a worker finished it; null before
     */
    public record JobView(long id, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long bundleId, JobState state, String target, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long memoryCapBytes, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String worker,
            int attempts, int maxAttempts, boolean cancelRequested, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String progress, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String reason,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Instant leaseExpiresAt, Instant createdAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Instant startedAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Instant finishedAt, ReproSpec spec,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) JobResult result) {}

    /** One job in a list (no spec, no result). */
    public record JobSummary(long id, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long bundleId, JobState state, String target, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long memoryCapBytes, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String worker,
            int attempts, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String progress, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String reason, Instant createdAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Instant finishedAt) {}

    /** A page of jobs, newest first. */
    public record JobPage(List<JobSummary> items, int page, int size, long total) {}

    /**
     * A worker the server has heard from.
     *
     * @param online whether it was seen within {@code crashlab.lab.worker-offline}
     * @param currentJob the job it holds, or null
     */
    public record WorkerView(String name, String backend, List<Device> devices, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String version, Instant firstSeen,
            Instant lastSeen, boolean online, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long currentJob) {}

    /** What one sweep of expired leases did. */
    public record SweepReport(int requeued, int failed, int cancelled) {}
}
