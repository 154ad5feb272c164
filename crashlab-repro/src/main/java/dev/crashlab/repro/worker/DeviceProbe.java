package dev.crashlab.repro.worker;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Asks a child JVM which device a worker's backend runs on, so neither the worker nor the server loads
 * a GPU library (JCuda) into its own process.
 *
 * <p>NOTE: the child is run as {@code MAIN --probe --backend NAME --result FILE} and writes
 * {@code {"device", "memory_bytes", "unavailable_reason"}}; a probe that fails is reported as a device
 * whose {@code unavailableReason} says why, never as an exception.
 */
public final class DeviceProbe {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    private DeviceProbe() {}

    /**
     * What the probing child writes (snake_case).
     *
     * @param backend the backend probed
     * @param device the device's name, or the backend's when it is unavailable
     * @param memoryBytes the device's memory, where known
     * @param unavailableReason why the backend cannot run here, or null
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Probe(String backend, String device, Long memoryBytes, String unavailableReason) {}

    /** Probes the backend of {@code settings} in a child JVM. */
    public static List<Device> probe(WorkerSettings settings) {
        String what = settings.backend() + " backend";
        try {
            Path dir = Files.createDirectories(settings.scratch());
            Path result = Files.createTempFile(dir, "probe-", ".json");
            Path log = Files.createTempFile(dir, "probe-", ".log");
            try {
                ChildExit exit = settings.child(List.of(ChildProtocol.PROBE, ChildProtocol.BACKEND, settings.backend(),
                        ChildProtocol.RESULT, result.toString())).start(log).await(LIMIT);
                if (exit.ending() != ChildExit.Ending.EXITED || exit.exitCode() != 0 || Files.size(result) == 0) {
                    return List.of(new Device(what, null, "device probe failed: " + exit.describe()));
                }
                Probe probe = ReproJson.mapper().readValue(result.toFile(), Probe.class);
                return List.of(new Device(probe.device() == null ? what : probe.device(), probe.memoryBytes(),
                        probe.unavailableReason()));
            } finally {
                Files.deleteIfExists(result);
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            return List.of(new Device(what, null, "device probe failed: " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(new Device(what, null, "device probe interrupted"));
        }
    }
}
