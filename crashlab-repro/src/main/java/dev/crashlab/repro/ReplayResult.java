package dev.crashlab.repro;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Locale;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Reports how a replay of a spec ended: overall, per layer, and next to the memory estimate.
 *
 * <p>NOTE: the statuses {@code crashed} and {@code timed-out} are set by whoever supervises the process the
 * replay ran in (the child JVM died or ran past its limit); {@link Replay} itself ends in passed, failed or
 * unavailable. Its JSON form is snake_case with statuses in lower case ({@code @JsonNaming} here, so every mapper
 * writes the same); a result from a child that stopped early may lack fields, which read as null, 0 or empty.
 *
 * @param status how the replay ended
 * @param backend the backend's name ({@code cpu}, {@code cuda})
 * @param device the device it ran on, or null when the backend was unavailable
 * @param reason why it ended so, in words (which layer ran out of memory, why the backend is unavailable)
 * @param memoryCapBytes the cap that emulated the reporter's card, 0 for none
 * @param seed the seed of the generated inputs
 * @param estimate the memory estimate of the spec
 * @param layers one result per layer that was tried, in order
 * @param findings what the replay shows about the reported crash (memory against the reporter's card, time against
 *     the Windows watchdog on the reporter's GPU); null in results made before it existed
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ReplayResult(Status status, String backend, @Schema(nullable = true) String device, String reason, long memoryCapBytes,
        long seed, @Schema(nullable = true) MemoryEstimate estimate, List<LayerResult> layers, @Schema(nullable = true) ReplayFindings findings) {

    /** A kernel longer than this trips the Windows display driver's watchdog (TDR) by default. */
    public static final double TDR_LIMIT_MS = 2000;

    public ReplayResult {
        layers = layers == null ? List.of() : List.copyOf(layers);
    }

    /** A result without findings (a supervisor's verdict on a replay that never reported). */
    public ReplayResult(Status status, String backend, String device, String reason, long memoryCapBytes, long seed,
            MemoryEstimate estimate, List<LayerResult> layers) {
        this(status, backend, device, reason, memoryCapBytes, seed, estimate, layers, null);
    }

    /** How a replay ended. */
    public enum Status {
        PASSED, FAILED, CRASHED, TIMED_OUT, UNAVAILABLE;

        /** The JSON spelling: {@code passed}, {@code timed-out}... */
        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** How one layer ended. */
    public enum LayerStatus {
        /** Every pass ran and its sampled outputs matched the oracle. */
        PASSED,
        /** A pass ran out of memory (the device's, or the cap's). */
        OUT_OF_MEMORY,
        /** The device reported an error (named in {@link LayerResult#error()}). */
        DEVICE_ERROR,
        /** A pass ran but its sampled outputs differ from the oracle beyond the dtype's tolerance. */
        MISMATCH,
        /** Not run, because an earlier device error left the device unusable. */
        SKIPPED;

        /** The JSON spelling: {@code out-of-memory}... */
        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One layer's replay.
     *
     * @param name the layer's name
     * @param problem the resolved convolution, as text
     * @param status how it ended
     * @param peakBytes the most memory one of its passes held, as the backend reported it (0 when none ran)
     * @param kernelMs the time of each pass that ran
     * @param maxAbsError the largest difference of a sampled output from the oracle, over all passes; null when
     *     no pass finished
     * @param tdrRisk whether a pass took longer than {@link #TDR_LIMIT_MS} on a GPU backend (never for {@code cpu})
     * @param error the device error's or out-of-memory's name ({@code CUDA_ERROR_OUT_OF_MEMORY}), or null
     * @param message the failure in words, or null
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record LayerResult(String name, String problem, LayerStatus status, long peakBytes, PassTimes kernelMs,
            @Schema(nullable = true) Double maxAbsError, boolean tdrRisk, @Schema(nullable = true) String error, @Schema(nullable = true) String message) {}

    /**
     * Milliseconds per pass; null for a pass that did not run.
     *
     * @param forward the forward pass
     * @param backwardData the input-gradient pass
     * @param backwardFilter the filter-gradient pass
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PassTimes(@Schema(nullable = true) Double forward, @Schema(nullable = true) Double backwardData, @Schema(nullable = true) Double backwardFilter) {

        /** The longest pass that ran, or 0. */
        public double longest() {
            double m = 0;
            for (Double d : new Double[] {forward, backwardData, backwardFilter}) {
                if (d != null) {
                    m = Math.max(m, d);
                }
            }
            return m;
        }
    }
}
