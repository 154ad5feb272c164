package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The findings' largest batch that fits (computed by search over the estimator, never capped at a multiple of the
 * spec's batch) and their times in words (never "0 ms").
 */
class ReplayFindingsTest {

    static ReproSpec spec(int batch, long cardMiB, int channels, int hw) {
        ReproLayer conv = new ReproLayer("conv", channels, 64, new int[] {hw, hw}, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        return new ReproSpec(List.of(conv), batch, ConvProblem.DType.FLOAT32, false, ConvProblem.Layout.NHWC,
                ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.ADAM, new ReproSpec.ReporterGpu("NVIDIA GeForce RTX 2060", cardMiB, 0L),
                List.of());
    }

    static boolean fits(ReproSpec s, int batch) {
        return Boolean.TRUE.equals(MemoryEstimator.estimate(s.withBatch(batch)).fits());
    }

    @Test
    void theLargestBatchIsTheBoundOfTheEstimateWhateverTheSpecsBatch() {
        // the same model and card, asked at batch 16 and at batch 512: one answer, the batch where the estimate
        // stops fitting (before the fix, batch 16 said "up to 64" and batch 512 "up to 1806")
        int fromSmall = ReplayFindings.of(spec(16, 6144, 64, 56), MemoryEstimator.estimate(spec(16, 6144, 64, 56)))
                .largestBatchThatFits();
        int fromLarge = ReplayFindings.of(spec(512, 6144, 64, 56), MemoryEstimator.estimate(spec(512, 6144, 64, 56)))
                .largestBatchThatFits();
        assertThat(fromSmall).isEqualTo(fromLarge).isGreaterThan(4 * 16);
        ReproSpec s = spec(16, 6144, 64, 56);
        assertThat(fits(s, fromSmall)).isTrue();
        assertThat(fits(s, fromSmall + 1)).isFalse();
    }

    @Test
    void theBoundFollowsTheCardAndIsZeroWhenOneSampleDoesNotFit() {
        ReproSpec small = spec(8, 2048, 64, 56);
        ReproSpec large = spec(8, 24576, 64, 56);
        int onSmall = ReplayFindings.largestBatchThatFits(small);
        int onLarge = ReplayFindings.largestBatchThatFits(large);
        assertThat(onLarge).isGreaterThan(onSmall * 10);
        assertThat(fits(large, onLarge)).isTrue();
        assertThat(fits(large, onLarge + 1)).isFalse();
        // 1024 channels of 512x512 per sample: one sample's tensors alone are gigabytes, over a 1 GiB card
        ReproSpec huge = spec(4, 1024, 1024, 512);
        assertThat(fits(huge, 1)).isFalse();
        ReplayFindings f = ReplayFindings.of(huge, MemoryEstimator.estimate(huge));
        assertThat(f.largestBatchThatFits()).isZero();
        assertThat(f.memory()).contains("not even batch 1 fits");
    }

    @Test
    void aFittingBatchNamesTheComputedBoundInWords() {
        ReproSpec s = spec(16, 6144, 64, 56);
        ReplayFindings f = ReplayFindings.of(s, MemoryEstimator.estimate(s));
        assertThat(f.exceedsReporterMemory()).isFalse();
        assertThat(f.memory()).contains("(up to batch " + f.largestBatchThatFits() + ")");
    }

    @Test
    void aTinyPassNeedsATimeThatIsNotZero() {
        // 1 sample of 3 channels, 4x4, to 64 filters: ~14 k multiply-adds, nanoseconds at 6.45 TFLOP/s
        ReproLayer tiny = new ReproLayer("tiny", 3, 64, new int[] {4, 4}, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        ReproSpec s = new ReproSpec(List.of(tiny), 1, ConvProblem.DType.FLOAT32, false, ConvProblem.Layout.NHWC,
                ReproSpec.Mode.INFERENCE, ReproSpec.Optimizer.SGD, new ReproSpec.ReporterGpu("NVIDIA GeForce RTX 2060", 6144, 0L),
                List.of());
        ReplayFindings f = ReplayFindings.of(s, MemoryEstimator.estimate(s));
        assertThat(f.longestPassMs()).isPositive().isLessThan(0.001);
        assertThat(f.time()).doesNotContain("needs at least 0 ms").containsPattern("needs at least 0\\.0+[1-9][0-9]? ms");
    }

    @Test
    void millisecondsInWords() {
        assertThat(ReplayFindings.millis(2500)).isEqualTo("2.5 s");
        assertThat(ReplayFindings.millis(42.4)).isEqualTo("42 ms");
        assertThat(ReplayFindings.millis(0.0347)).isEqualTo("0.035 ms");
        assertThat(ReplayFindings.millis(3.0)).isEqualTo("3 ms");
        assertThat(ReplayFindings.millis(0.00021)).isEqualTo("0.00021 ms");
    }
}
