package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.CpuConvBackend;

import java.util.ArrayList;
import java.util.List;

/**
 * Estimates the GPU memory one step of a {@link ReproSpec} needs before anything runs, layer by layer, and
 * compares it with the reporter's card.
 *
 * <p>NOTE: the model, in bytes of the spec's dtype (float32 for weights kept as mixed-precision masters):
 * weights = filter elements (plus a half copy with mixed precision); in training, gradients = weights,
 * optimizer slots = slots x weights, and each layer keeps its input (for the filter gradient) and its output
 * (for whatever follows). Workspace is bounded by the im2col matrix (N x output positions x C x kernel
 * volume), capped at TensorFlow's default cuDNN workspace limit of 4 GiB ({@code TF_CUDNN_WORKSPACE_LIMIT_IN_MB}).
 */
public final class MemoryEstimator {

    /** MiB in bytes. */
    public static final long MIB = 1L << 20;

    /** Set aside for the CUDA context, cuDNN/cuBLAS handles and the framework's own allocations. */
    public static final long FRAMEWORK_RESERVE_BYTES = 512 * MIB;

    /** TensorFlow's default limit on one cuDNN call's workspace (4096 MiB). */
    public static final long WORKSPACE_LIMIT_BYTES = 4096 * MIB;

    private MemoryEstimator() {}

    /** Estimates one step of {@code spec} in its mode. */
    public static MemoryEstimate estimate(ReproSpec spec) {
        boolean training = spec.mode() == ReproSpec.Mode.TRAINING;
        int act = spec.dtype().bytes;
        int param = spec.mixedPrecision() ? 4 : spec.dtype().bytes;
        int halfCopy = spec.mixedPrecision() && spec.dtype() != ConvProblem.DType.FLOAT32 ? spec.dtype().bytes : 0;
        List<MemoryEstimate.LayerMemory> rows = new ArrayList<>();
        long weights = 0;
        long grads = 0;
        long slots = 0;
        long kept = 0;
        long transientMax = 0;
        for (ConvProblem p : spec.problems()) {
            long filter = p.filterElements();
            long w = filter * (param + halfCopy);
            long g = training ? filter * param : 0;
            long o = training ? filter * param * spec.optimizer().slots : 0;
            long tensors = (p.inputElements() + p.outputElements()) * act;
            long a = training ? tensors : 0;
            long ws = workspaceBytes(p);
            // inference holds x and y only while the layer runs; training's backward holds dy and dx the same way
            long transientBytes = ws + tensors;
            rows.add(new MemoryEstimate.LayerMemory(p.name(), a, w, g, o, ws, transientBytes, w + g + o + a + transientBytes,
                    cpuReplayBytes(p, Runtime.getRuntime().availableProcessors())));
            weights += w;
            grads += g;
            slots += o;
            kept += a;
            transientMax = Math.max(transientMax, transientBytes);
        }
        long total = weights + grads + slots + kept + transientMax;
        Long available = null;
        Boolean fits = null;
        List<String> assumptions = new ArrayList<>();
        assumptions.add(training
                ? "a training step keeps every layer's input (for the filter gradient) and output (for the layer after it)"
                : "inference keeps no activations: each layer's input and output live only while it runs");
        if (spec.mixedPrecision()) {
            assumptions.add("mixed precision: float32 master weights, gradients and optimizer slots, plus a "
                    + spec.dtype().name().toLowerCase(java.util.Locale.ROOT) + " copy of the weights");
        }
        if (training) {
            assumptions.add("optimizer " + spec.optimizer().label() + ": " + spec.optimizer().slots + " slot(s) per weight");
        }
        assumptions.add("workspace: the im2col matrix of the largest pass, at most 4096 MiB (TensorFlow's default cuDNN limit)");
        if (spec.reporterGpu() != null) {
            ReproSpec.ReporterGpu gpu = spec.reporterGpu();
            long used = gpu.memoryUsedMiB() == null ? 0 : gpu.memoryUsedMiB();
            available = Math.max(0, (gpu.memoryTotalMiB() - used) * MIB - FRAMEWORK_RESERVE_BYTES);
            fits = total <= available;
            assumptions.add("available: " + gpu.memoryTotalMiB() + " MiB total" + (gpu.memoryUsedMiB() == null
                    ? " (used memory not stated, taken as 0)"
                    : " minus " + used + " MiB in use when nvidia-smi ran (taken as other processes')")
                    + " minus a " + FRAMEWORK_RESERVE_BYTES / MIB + " MiB framework reserve (CUDA context, cuDNN and cuBLAS handles)");
        }
        List<String> notModelled = List.of(
                "layers other than convolutions (batch norm, activations, pooling, dense) and the tensors they keep",
                "biases, the loss, the input pipeline and prefetch buffers",
                "allocator fragmentation and caching (frameworks round and pool blocks, so real peaks are higher)",
                "cuDNN's algorithm choice: the workspace is an upper bound for im2col; implicit-GEMM needs none, FFT may need more");
        return new MemoryEstimate(spec.mode(), rows, weights, grads, slots, kept, transientMax, total, available,
                FRAMEWORK_RESERVE_BYTES, fits, assumptions, notModelled);
    }

    /**
     * An upper bound of the host memory one pass of {@code p} holds when the CPU backend replays it on
     * {@code threads} threads: its float32 operands and output, NHWC layout copies, half-type rounding copies
     * and the kernels' scratch (padded input planes, packed panels, partial sums), the largest of the three passes.
     *
     * <p>NOTE: the CPU backend's arrays are int-indexed; a pass whose operands or scratch cannot be counted in them
     * (its sizing overflows) cannot be replayed on the CPU at all, and its bound is {@link Long#MAX_VALUE}.
     */
    public static long cpuReplayBytes(ConvProblem p, int threads) {
        try {
            return CpuConvBackend.passBound(p, threads);
        } catch (ArithmeticException tooLargeForJavaArrays) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * An upper bound of one pass's workspace: the im2col matrix of the convolution the layer computes
     * (for a transposed layer, the convolution it transposes), capped at {@link #WORKSPACE_LIMIT_BYTES}.
     */
    public static long workspaceBytes(ConvProblem p) {
        long positions;
        long channels;
        if (p.transposed()) {
            positions = product(p.inDims());
            channels = p.outChannels();
        } else {
            positions = product(p.outDims());
            channels = p.inChannels();
        }
        // saturating: sizes within the spec's limits can still multiply past long here
        long columns = ReproSpecJson.elements(p.batch(), channels, p.kernel());
        columns = ReproSpecJson.elements(columns, positions, new int[] {p.dtype().bytes});
        return Math.min(columns, WORKSPACE_LIMIT_BYTES);
    }

    private static long product(int[] v) {
        long p = 1;
        for (int x : v) {
            p *= x;
        }
        return p;
    }
}
