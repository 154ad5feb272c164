package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The memory estimator on cases computed by hand (the arithmetic is in the comments). */
class MemoryEstimatorTest {

    static final long MIB = 1L << 20;

    static ReproLayer layer(String name, int c, int hw, int k, int kernel, int stride, int pad) {
        return new ReproLayer(name, c, k, new int[] {hw, hw}, new int[] {kernel, kernel}, new int[] {stride, stride},
                new int[] {pad, pad}, new int[] {pad, pad}, new int[] {1, 1}, 1, false);
    }

    static ReproSpec spec(List<ReproLayer> layers, int batch, ConvProblem.DType dtype, boolean mixed,
            ReproSpec.Mode mode, ReproSpec.Optimizer opt, ReproSpec.ReporterGpu gpu) {
        return new ReproSpec(layers, batch, dtype, mixed, ConvProblem.Layout.NHWC, mode, opt, gpu, List.of());
    }

    @Test
    void oneFloat32LayerTrainedWithAdam() {
        // N=2, 3 -> 4 channels, 8x8, 3x3 kernel, padding 1: output 8x8
        MemoryEstimate e = MemoryEstimator.estimate(spec(List.of(layer("c", 3, 8, 4, 3, 1, 1)), 2,
                ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.ADAM, null));
        // filter 4*3*3*3 = 108 elements: weights 432 B, gradients 432 B, Adam's two slots 864 B
        // input 2*3*64 = 384 and output 2*4*64 = 512 elements: 3584 B kept
        // im2col: 2 * 64 positions * 3 channels * 9 taps * 4 B = 13824 B; transient 13824 + 3584 = 17408
        MemoryEstimate.LayerMemory l = e.layers().getFirst();
        assertThat(l).isEqualTo(new MemoryEstimate.LayerMemory("c", 3584, 432, 432, 864, 13824, 17408,
                432 + 432 + 864 + 3584 + 17408, MemoryEstimator.cpuReplayBytes(spec(List.of(layer("c", 3, 8, 4, 3, 1, 1)),
                        2, ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.ADAM, null)
                        .problems().getFirst(), Runtime.getRuntime().availableProcessors())));
        assertThat(e.weightBytes()).isEqualTo(432);
        assertThat(e.gradientBytes()).isEqualTo(432);
        assertThat(e.optimizerBytes()).isEqualTo(864);
        assertThat(e.activationBytes()).isEqualTo(3584);
        assertThat(e.transientBytes()).isEqualTo(17408);
        assertThat(e.totalBytes()).isEqualTo(22720);
        assertThat(e.availableBytes()).isNull();
        assertThat(e.fits()).isNull();
        assertThat(e.notModelled()).anyMatch(s -> s.contains("fragmentation"))
                .anyMatch(s -> s.contains("batch norm")).anyMatch(s -> s.contains("algorithm choice"));
    }

    @Test
    void mixedPrecisionKeepsFloat32MastersAndTwoLayersShareTheTransientPeak() {
        // fp16 compute, fp32 masters, momentum (1 slot), N=1
        // a: 8 -> 8, 4x4, 1x1: filter 64; in 128, out 128 elements; im2col 1*16*8*1*2 = 256 B
        // b: 8 -> 16, 4x4, 3x3 stride 2 pad 1: out 2x2; filter 16*8*9 = 1152; in 128, out 64; im2col 1*4*8*9*2 = 576 B
        MemoryEstimate e = MemoryEstimator.estimate(spec(List.of(layer("a", 8, 4, 8, 1, 1, 0), layer("b", 8, 4, 16, 3, 2, 1)),
                1, ConvProblem.DType.FLOAT16, true, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.MOMENTUM, null));
        // weights: (64 + 1152) * (4 + 2) = 7296; gradients (64 + 1152) * 4 = 4864; momentum the same 4864
        assertThat(e.weightBytes()).isEqualTo(7296);
        assertThat(e.gradientBytes()).isEqualTo(4864);
        assertThat(e.optimizerBytes()).isEqualTo(4864);
        // kept: (128 + 128) * 2 + (128 + 64) * 2 = 896
        assertThat(e.activationBytes()).isEqualTo(896);
        // transient: a 256 + 512 = 768, b 576 + 384 = 960: the larger one counts once
        assertThat(e.layers()).extracting(MemoryEstimate.LayerMemory::transientBytes).containsExactly(768L, 960L);
        assertThat(e.transientBytes()).isEqualTo(960);
        assertThat(e.totalBytes()).isEqualTo(7296 + 4864 + 4864 + 896 + 960);
        assertThat(e.assumptions()).anyMatch(s -> s.startsWith("mixed precision: float32 master weights"));
    }

    @Test
    void inferenceKeepsNoActivationsGradientsOrSlots() {
        MemoryEstimate e = MemoryEstimator.estimate(spec(List.of(layer("c", 3, 8, 4, 3, 1, 1)), 2,
                ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.INFERENCE, ReproSpec.Optimizer.ADAM, null));
        assertThat(e.gradientBytes()).isZero();
        assertThat(e.optimizerBytes()).isZero();
        assertThat(e.activationBytes()).isZero();
        assertThat(e.totalBytes()).isEqualTo(432 + 17408);
    }

    @Test
    void comparesWithTheReportersCardLessWhatOthersHoldAndTheReserve() {
        ReproSpec.ReporterGpu card = new ReproSpec.ReporterGpu("GeForce RTX 2060", 6144, 412L);
        MemoryEstimate e = MemoryEstimator.estimate(spec(List.of(layer("c", 3, 8, 4, 3, 1, 1)), 2,
                ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.ADAM, card));
        // (6144 - 412) MiB - 512 MiB reserve = 5220 MiB
        assertThat(e.availableBytes()).isEqualTo(5220 * MIB);
        assertThat(e.frameworkReserveBytes()).isEqualTo(512 * MIB);
        assertThat(e.fits()).isTrue();
        assertThat(e.assumptions()).anyMatch(s -> s.contains("6144 MiB total minus 412 MiB"));

        // ResNet-50's stem and first 3x3 at batch 512 on that card do not fit: 2.8 GB of activations kept
        // plus the stem's 3.8 GB im2col bound and 2.0 GB of its own tensors in the same pass = 8.5 GB > 5.5 GB
        ReproSpec big = spec(List.of(layer("conv1", 3, 224, 64, 7, 2, 3), layer("res2a", 64, 56, 64, 3, 1, 1)), 512,
                ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.ADAM, card);
        MemoryEstimate b = MemoryEstimator.estimate(big);
        assertThat(b.fits()).isFalse();
        assertThat(b.totalBytes()).isGreaterThan(b.availableBytes());

        // a card more than full leaves nothing, not a negative number
        MemoryEstimate full = MemoryEstimator.estimate(spec(List.of(layer("c", 3, 8, 4, 3, 1, 1)), 2,
                ConvProblem.DType.FLOAT32, false, ReproSpec.Mode.TRAINING, ReproSpec.Optimizer.SGD,
                new ReproSpec.ReporterGpu(null, 600, 100L)));
        assertThat(full.availableBytes()).isZero();
        assertThat(full.fits()).isFalse();
    }

    @Test
    void workspaceIsCappedAtTheFrameworkLimit() {
        // 512 * 112*112 positions * 64 channels * 9 taps * 2 B = 7.4 GB of im2col: capped at 4096 MiB
        ConvProblem p = layer("w", 64, 112, 64, 3, 1, 1).problem(512, ConvProblem.DType.FLOAT16, ConvProblem.Layout.NHWC);
        assertThat(MemoryEstimator.workspaceBytes(p)).isEqualTo(4096 * MIB);
        // a transposed layer's im2col is that of the convolution it transposes: positions of its input, its K channels
        ConvProblem t = new ConvProblem("t", 1, 2, 3, new int[] {5}, 4, new int[] {3}, new int[] {2}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, true);
        assertThat(MemoryEstimator.workspaceBytes(t)).isEqualTo(2L * 5 * 4 * 3 * 4);
    }
}
