package dev.crashlab.repro;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * What a worker reports for a finished reproduction job, as the worker protocol's {@code complete} carries it, the
 * job row stores it and {@code GET /api/repro/jobs/{id}} returns it: the replay's result (when the child wrote one)
 * and how the child process ended.
 *
 * <p>NOTE: snake_case on the wire ({@code {"replay", "child", "worker", "backend"}}), whichever mapper writes it.
 *
 * @param replay the child's replay result; null when the child wrote none (it crashed, hung or was killed)
 * @param child how the child process ended
 * @param worker the worker that ran it
 * @param backend the backend its child used ({@code cpu}, {@code cuda})
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record JobResult(@Schema(nullable = true) ReplayResult replay, Child child, String worker, String backend) {

    /**
     * How the child JVM ended.
     *
     * @param ending {@code exited}, {@code timed-out}, {@code cancelled} or {@code not-started}
     * @param exitCode its exit status, null when it never ran
     * @param signal the signal an exit status of 128 + n means ({@code SIGKILL}), or null
     * @param durationMs how long it ran
     * @param description the ending in words ({@code the replay process exited with status 134 (SIGABRT)})
     * @param logTail the end of its output, bounded
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Child(String ending, @Schema(nullable = true) Integer exitCode, @Schema(nullable = true) String signal, long durationMs, String description,
            String logTail) {}
}
