package dev.crashlab.repro.worker;

import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReproSpec;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Holds the messages of the worker protocol (claim, heartbeat, complete), shared by the server's
 * resource and the worker's HTTP client so both sides read the same JSON.
 *
 * <p>NOTE: these are the wire types: camelCase field names; the spec inside a claimed job is its
 * {@code "format": 1} document and the result inside a completion is snake_case, as their own types say
 * ({@link ReproSpec}, {@link JobResult}), whichever mapper writes them.
 */
public final class WorkerMessages {

    private WorkerMessages() {}

    /**
     * A device a worker replays on.
     *
     * @param name the device's name ({@code NVIDIA GeForce RTX 4090}, {@code 16-core CPU})
     * @param memoryBytes its memory, where known
     * @param unavailableReason why the backend cannot run on this worker, or null when it can
     */
    public record Device(String name, @Schema(nullable = true) Long memoryBytes, @Schema(nullable = true) String unavailableReason) {}

    /**
     * A worker asks for a job.
     *
     * @param worker the worker's name, unique among the server's workers
     * @param backend the backend it runs ({@code cpu}, {@code cuda})
     * @param devices what it runs on (one device: one job at a time per worker)
     * @param version the CrashLab version of the worker
     */
    public record ClaimRequest(String worker, String backend, List<Device> devices, String version) {
        public ClaimRequest {
            devices = devices == null ? List.of() : List.copyOf(devices);
        }
    }

    /**
     * The job a worker got.
     *
     * @param id the job's id
     * @param spec the reproduction spec (its {@code "format": 1} document on the wire)
     * @param memoryCapBytes the memory cap emulating the reporter's card; null for none
     * @param attempt which attempt this is (1-based)
     * @param leaseSeconds how long the claim holds without a heartbeat
     */
    public record ClaimedJob(long id, ReproSpec spec, Long memoryCapBytes, int attempt, long leaseSeconds) {}

    /**
     * A worker says it is still on a job.
     *
     * @param worker the worker's name
     * @param progress what the child reported last, or null
     */
    public record Heartbeat(String worker, String progress) {}

    /**
     * The server's answer to a heartbeat.
     *
     * @param cancel true when the worker must stop the job (cancelled, or no longer this worker's)
     * @param reason why, when {@code cancel}
     * @param leaseExpiresAt the extended lease
     */
    public record HeartbeatReply(boolean cancel, String reason, Instant leaseExpiresAt) {}

    /**
     * A worker reports how a job ended.
     *
     * @param worker the worker's name
     * @param state a final state
     * @param reason one sentence on why it ended so
     * @param result the replay result and how the child ended; null when there is none to report
     */
    public record Completion(String worker, JobState state, String reason, JobResult result) {}
}
