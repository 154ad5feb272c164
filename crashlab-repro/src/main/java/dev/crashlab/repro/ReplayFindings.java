package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Locale;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * What a replay shows about the reported crash, in words and as two verdicts: whether the reporter's batch fits
 * the reporter's card (the memory estimate against what the card had free), and whether a pass needs longer than
 * the Windows display watchdog allows on the reporter's GPU (the pass's FLOPs over the card's peak throughput
 * from {@link GpuThroughput}: a lower bound, since no kernel reaches the peak).
 *
 * <p>NOTE: both verdicts come from the spec, not from the backend's timings, so a CPU replay gives them as well
 * as a lab GPU does; null verdicts mean the spec names no reporter card, or a card the throughput table lacks.
 *
 * @param memory the memory verdict in words
 * @param time the time verdict in words
 * @param exceedsReporterMemory whether the batch does not fit the reporter's card; null when unknown
 * @param largestBatchThatFits the largest batch whose estimate fits the card (0: not even one), null when unknown
 * @param exceedsWatchdog whether some pass needs more than {@link ReplayResult#TDR_LIMIT_MS} on the reporter's
 *     GPU at its peak; null when unknown
 * @param longestPassMs the longest pass's lower-bound time on the reporter's GPU, null when unknown
 * @param passesOverWatchdog "layer pass" of every pass over the limit
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ReplayFindings(String memory, String time, @Schema(nullable = true) Boolean exceedsReporterMemory, @Schema(nullable = true) Integer largestBatchThatFits,
        @Schema(nullable = true) Boolean exceedsWatchdog, @Schema(nullable = true) Double longestPassMs, List<String> passesOverWatchdog) {

    public ReplayFindings {
        passesOverWatchdog = passesOverWatchdog == null ? List.of() : List.copyOf(passesOverWatchdog);
    }

    /** The findings of {@code spec}, whose estimate is {@code estimate}. */
    public static ReplayFindings of(ReproSpec spec, MemoryEstimate estimate) {
        ReproSpec.ReporterGpu gpu = spec.reporterGpu();
        String card = gpu == null || gpu.name() == null || gpu.name().isBlank() ? "the reporter's card" : gpu.name();
        String memory;
        Boolean tooBig = null;
        Integer largest = null;
        if (estimate.availableBytes() == null || estimate.fits() == null) {
            memory = "memory: the spec names no reporter card, so the estimate (" + ByteSize.format(estimate.totalBytes())
                    + " for one " + spec.mode().label() + " step at batch " + spec.batch() + ") is not compared with one";
        } else {
            tooBig = !estimate.fits();
            largest = largestBatchThatFits(spec);
            String need = "one " + spec.mode().label() + " step's convolutions at batch " + spec.batch() + " need at least "
                    + ByteSize.format(estimate.totalBytes()) + "; " + card + " had " + ByteSize.format(estimate.availableBytes())
                    + " free for them (" + gpu.memoryTotalMiB() + " MiB total"
                    + (gpu.memoryUsedMiB() == null ? "" : ", " + gpu.memoryUsedMiB() + " MiB in use") + ", "
                    + (estimate.frameworkReserveBytes() >> 20) + " MiB framework reserve)";
            memory = "memory: " + need + (tooBig
                    ? ": the batch does not fit, so an out-of-memory error is expected on that card; "
                            + (largest == 0 ? "not even batch 1 fits" : "the largest batch that fits is " + largest)
                    : ": the batch fits" + (largest != null && largest > spec.batch() ? " (up to batch " + largest + ")" : "")
                            + ", so the convolutions alone do not explain an out-of-memory error");
        }
        GpuThroughput.Peak peak = gpu == null ? null : GpuThroughput.of(gpu.name()).orElse(null);
        if (peak == null) {
            String time = "time: " + (gpu == null ? "the spec names no reporter GPU"
                    : card + " is not in the throughput table (compat/gpu-throughput.csv)")
                    + ", so no pass is timed against the 2 s Windows watchdog (TDR)";
            return new ReplayFindings(memory, time, tooBig, largest, null, null, List.of());
        }
        boolean half = spec.dtype() != ConvProblem.DType.FLOAT32;
        double tflops = half && peak.fp16Tflops() != null ? peak.fp16Tflops() : peak.fp32Tflops();
        String rate = String.format(Locale.ROOT, "%s TFLOP/s (%s)", trim(tflops), half && peak.fp16Tflops() != null
                ? "FP16 tensor cores" : "FP32" + (half ? "; the table has no FP16 figure for it" : ""));
        double longest = 0;
        String longestName = null;
        List<String> over = new java.util.ArrayList<>();
        boolean training = spec.mode() == ReproSpec.Mode.TRAINING;
        for (ConvProblem p : spec.problems()) {
            double ms = 2.0 * p.macs() / (tflops * 1e12) * 1e3; // every pass has the forward pass's multiply-adds
            String[] passes = training ? new String[] {"forward", "backward-data", "backward-filter"} : new String[] {"forward"};
            for (String pass : passes) {
                if (ms > ReplayResult.TDR_LIMIT_MS) {
                    over.add(p.name() + " " + pass);
                }
            }
            if (ms > longest) {
                longest = ms;
                longestName = p.name();
            }
        }
        boolean exceeds = !over.isEmpty();
        String time = String.format(Locale.ROOT, "time: at %s's peak of %s, the longest pass (%s) needs at least %s", card,
                rate, longestName == null ? "none" : longestName, millis(longest))
                + (exceeds ? ": over the 2 s Windows watchdog (TDR) default, so on a GPU that drives a display under Windows"
                        + " the driver would be reset mid-step (" + over.size() + " pass(es) over: "
                        + String.join(", ", over.subList(0, Math.min(6, over.size()))) + (over.size() > 6 ? ", ..." : "") + ")"
                        : ": under the 2 s Windows watchdog (TDR) default, so the convolutions alone do not explain a TDR reset");
        return new ReplayFindings(memory, time, tooBig, largest, exceeds, longest, over);
    }

    /** The most batch {@link #largestBatchThatFits} tries: past it a sample is too small to matter (16 M). */
    static final int BATCH_SEARCH_LIMIT = 1 << 24;

    /**
     * Computes the largest batch whose estimate fits the card (0 when batch 1 does not): doubles the batch until an
     * estimate does not fit, then halves the gap. The estimate grows with the batch (activations are per sample), so
     * the answer is the bound itself, not a cap at some multiple of the spec's batch; {@link #BATCH_SEARCH_LIMIT}
     * when even that fits.
     */
    static int largestBatchThatFits(ReproSpec spec) {
        if (!fits(spec, 1)) {
            return 0;
        }
        int lo = 1;
        long hi = 2;
        while (hi <= BATCH_SEARCH_LIMIT && fits(spec, (int) hi)) {
            lo = (int) hi;
            hi *= 2;
        }
        if (hi > BATCH_SEARCH_LIMIT) {
            if (fits(spec, BATCH_SEARCH_LIMIT)) {
                return BATCH_SEARCH_LIMIT;
            }
            hi = BATCH_SEARCH_LIMIT;
        }
        while (hi - lo > 1) {
            int mid = (int) ((lo + hi) >>> 1);
            if (fits(spec, mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static boolean fits(ReproSpec spec, int batch) {
        ReproSpec at = spec.withBatch(batch);
        if (at.problems().stream().anyMatch(p -> ReproSpecJson.overLimit(p) != null)) {
            return false; // past what a spec may describe (and what the estimator's sums can count)
        }
        return Boolean.TRUE.equals(MemoryEstimator.estimate(at).fits());
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** A lower bound in words: whole milliseconds from 10 ms, two significant digits below (a real pass never reads "0 ms"). */
    static String millis(double ms) {
        if (ms >= 1000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000);
        }
        if (ms >= 10) {
            return String.format(Locale.ROOT, "%.0f ms", ms);
        }
        if (ms > 0) {
            return new java.math.BigDecimal(ms).round(new java.math.MathContext(2)).stripTrailingZeros().toPlainString() + " ms";
        }
        return "0 ms";
    }
}
