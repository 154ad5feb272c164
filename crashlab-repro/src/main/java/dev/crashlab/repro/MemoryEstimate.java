package dev.crashlab.repro;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * States how much GPU memory a spec's step needs, per layer and in total, against what the reporter's card had
 * free, and what the estimate leaves out.
 *
 * <p>NOTE: {@code totalBytes} is the persistent memory of every layer (weights, gradients, optimizer slots,
 * kept activations) plus the largest transient need of any one layer (its workspace and, in training, the
 * gradient tensors of its backward pass), because layers run one after another. A layer's own
 * {@code totalBytes} is its persistent share plus its transient need, so the layer totals do not add up to
 * the spec's.
 *
 * @param mode the mode estimated
 * @param layers one row per layer, in order
 * @param weightBytes all weights (with mixed precision: float32 master weights plus their half copies)
 * @param gradientBytes all weight gradients (training)
 * @param optimizerBytes all optimizer slots (training)
 * @param activationBytes activations kept for the backward pass (training)
 * @param transientBytes the largest transient need of one layer (workspace, and in training dy and dx)
 * @param totalBytes the estimated peak of one step
 * @param availableBytes what the reporter's card had for this job (total minus used minus the framework
 *     reserve), or null when no GPU memory was stated
 * @param frameworkReserveBytes what the estimate sets aside for the CUDA context and library handles
 * @param fits whether {@code totalBytes <= availableBytes}; null when availability is unknown
 * @param assumptions what the estimate assumed, in words
 * @param notModelled what the estimate leaves out, in words (so the number is read as a floor, not a promise)
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record MemoryEstimate(ReproSpec.Mode mode, List<LayerMemory> layers, long weightBytes, long gradientBytes,
        long optimizerBytes, long activationBytes, long transientBytes, long totalBytes, @Schema(nullable = true) Long availableBytes,
        long frameworkReserveBytes, @Schema(nullable = true) Boolean fits, List<String> assumptions, List<String> notModelled) {

    public MemoryEstimate {
        layers = List.copyOf(layers);
        assumptions = List.copyOf(assumptions);
        notModelled = List.copyOf(notModelled);
    }

    /**
     * One layer's share of the estimate.
     *
     * @param name the layer's name
     * @param activationBytes its input and output kept for the backward pass (training); 0 for inference
     * @param weightBytes its filter (with mixed precision: float32 master plus the half copy)
     * @param gradientBytes its filter gradient (training)
     * @param optimizerBytes its optimizer slots (training)
     * @param workspaceBytes an upper bound of the workspace of its largest pass
     * @param transientBytes what it needs only while it runs: workspace, plus its input and output
     *     (inference) or dy and dx (training)
     * @param totalBytes its persistent share plus its transient need
     * @param cpuReplayBytes an upper bound of the host memory one pass of its replay on the CPU backend holds
     *     (float32 operands and output, layout and rounding copies, the kernels' scratch) on this machine's
     *     cores: what a replay's {@code peak_bytes} stays within
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record LayerMemory(String name, long activationBytes, long weightBytes, long gradientBytes,
            long optimizerBytes, long workspaceBytes, long transientBytes, long totalBytes, long cpuReplayBytes) {}
}
