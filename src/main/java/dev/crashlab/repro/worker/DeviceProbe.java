package dev.crashlab.repro.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
                JsonNode probe = JsonMapper.builder().build().readTree(result.toFile());
                return List.of(new Device(probe.path("device").asText(what),
                        probe.hasNonNull("memory_bytes") ? probe.get("memory_bytes").asLong() : null,
                        probe.hasNonNull("unavailable_reason") ? probe.get("unavailable_reason").asText() : null));
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
