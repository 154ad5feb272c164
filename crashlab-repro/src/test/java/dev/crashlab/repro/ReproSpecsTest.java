package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ConvSpec;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.TrainingSetup;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Specs made from facts: padding, layouts, depthwise/separable/transposed kinds, and what is assumed. */
class ReproSpecsTest {

    static final List<SourceRef> SRC = List.of(new SourceRef("model.json", 1, ""));

    static ConvSpec conv(String name, String kind, int rank, Integer in, Integer filters, List<Integer> kernel,
            List<Integer> strides, String padding, List<Integer> explicit, Integer groups, Integer multiplier,
            String format, String dtype, List<Integer> inputShape) {
        return new ConvSpec(name, kind, null, rank, in, filters, kernel, strides, padding, explicit, null, groups,
                multiplier, format, dtype, null, inputShape, null, List.of(), SRC);
    }

    static GpuDevice gpu(String name, long total, Long used) {
        return new GpuDevice(0, name, null, "00000000:01:00.0", total, used, "531.79", "12.1", "7.5", "WDDM", null, null,
                null, null, null, null, null, null, List.of(), Map.of(), SRC);
    }

    @Test
    void aKerasModelWithEveryKind() {
        List<Fact> facts = List.of(
                conv("stem", "Conv2D", 2, null, 32, List.of(3, 3), List.of(2, 2), "same", null, null, null,
                        "channels_last", "float32", Arrays.asList(null, 224, 224, 3)),
                conv("dw", "DepthwiseConv2D", 2, 32, null, List.of(3, 3), List.of(1, 1), "valid", null, null, 2,
                        "channels_last", "float32", Arrays.asList(null, 112, 112, 32)),
                conv("sep", "SeparableConv2D", 2, null, 128, List.of(5, 5), List.of(1, 1), "same", null, null, 1,
                        "channels_last", "float32", Arrays.asList(null, 110, 110, 64)),
                conv("up", "Conv2DTranspose", 2, null, 16, List.of(3, 3), List.of(2, 2), "same", null, null, null,
                        "channels_last", "float32", Arrays.asList(null, 110, 110, 128)),
                conv("wave", "Conv1D", 1, null, 8, List.of(3), List.of(1), "causal", null, null, null,
                        "channels_last", "float32", Arrays.asList(null, 100, 4)),
                new TrainingSetup(64, "Adam", null, SRC),
                gpu("NVIDIA GeForce RTX 2060", 6144, 300L));
        ReproSpec s = ReproSpecs.fromFacts(facts);
        assertThat(s.layers()).extracting(ReproLayer::name)
                .containsExactly("stem", "dw", "sep/depthwise", "sep/pointwise", "up", "wave");
        assertThat(s.batch()).isEqualTo(64);
        assertThat(s.layout()).isEqualTo(ConvProblem.Layout.NHWC);
        assertThat(s.optimizer()).isEqualTo(ReproSpec.Optimizer.ADAM);
        assertThat(s.mode()).isEqualTo(ReproSpec.Mode.TRAINING);
        assertThat(s.reporterGpu()).isEqualTo(new ReproSpec.ReporterGpu("NVIDIA GeForce RTX 2060", 6144, 300L));
        List<ConvProblem> p = s.problems();
        // same, 3x3 stride 2 on 224: output 112, total padding (112-1)*2+3-224 = 1, all at the end
        assertThat(p.get(0).inChannels()).isEqualTo(3);
        assertThat(p.get(0).padBegin()).containsExactly(0, 0);
        assertThat(p.get(0).padEnd()).containsExactly(1, 1);
        assertThat(p.get(0).outDims()).containsExactly(112, 112);
        // depthwise with multiplier 2: 32 groups, 64 filters
        assertThat(p.get(1).groups()).isEqualTo(32);
        assertThat(p.get(1).outChannels()).isEqualTo(64);
        assertThat(p.get(1).outDims()).containsExactly(110, 110);
        // separable: depthwise 64 -> 64 in 64 groups with 'same' (2/2), then pointwise 1x1 64 -> 128
        assertThat(p.get(2).groups()).isEqualTo(64);
        assertThat(p.get(2).padBegin()).containsExactly(2, 2);
        assertThat(p.get(3).kernel()).containsExactly(1, 1);
        assertThat(p.get(3).inChannels()).isEqualTo(64);
        assertThat(p.get(3).outChannels()).isEqualTo(128);
        assertThat(p.get(3).inDims()).containsExactly(110, 110);
        // transposed 'same' stride 2: output 220 (input * stride)
        assertThat(p.get(4).transposed()).isTrue();
        assertThat(p.get(4).outDims()).containsExactly(220, 220);
        // causal: (k-1) before, nothing after, output length kept
        assertThat(p.get(5).padBegin()).containsExactly(2);
        assertThat(p.get(5).padEnd()).containsExactly(0);
        assertThat(p.get(5).outDims()).containsExactly(100);
        assertThat(s.notes()).noneMatch(n -> n.contains("assumed"));
    }

    @Test
    void pyTorchLayersAreChannelsFirstWithExplicitPadding() {
        ReproSpec s = ReproSpecs.fromFacts(List.of(
                conv("features.0", "torch.nn.Conv2d", 2, 3, 64, List.of(11, 11), List.of(4, 4), "explicit", List.of(2, 2),
                        1, null, null, "float16", List.of(8, 3, 224, 224)),
                conv("features.3", "torch.nn.Conv3d", 3, 4, 8, List.of(3, 3, 3), List.of(1, 1, 1), "explicit",
                        List.of(1, 0, 0, 1, 2, 2), 2, null, null, "float16", List.of(8, 4, 6, 7, 8))));
        assertThat(s.layout()).isEqualTo(ConvProblem.Layout.NCHW);
        assertThat(s.batch()).isEqualTo(8);
        assertThat(s.dtype()).isEqualTo(ConvProblem.DType.FLOAT16);
        assertThat(s.mixedPrecision()).isFalse();
        ConvProblem a = s.problems().get(0);
        assertThat(a.inDims()).containsExactly(224, 224);
        assertThat(a.outDims()).containsExactly(55, 55);
        ConvProblem b = s.problems().get(1);
        assertThat(b.inDims()).containsExactly(6, 7, 8);
        assertThat(b.padBegin()).containsExactly(1, 0, 2);
        assertThat(b.padEnd()).containsExactly(0, 1, 2);
        assertThat(b.groups()).isEqualTo(2);
        assertThat(s.notes()).anyMatch(n -> n.startsWith("optimizer not stated; Adam assumed"))
                .anyMatch(n -> n.startsWith("no GPU memory stated"));
    }

    @Test
    void whatCannotBeResolvedBecomesANote() {
        ReproSpec s = ReproSpecs.fromFacts(List.of(
                conv("open", "Conv2D", 2, null, 8, List.of(3, 3), null, "same", null, null, null, "channels_last", null,
                        Arrays.asList(null, null, null, 3)),
                conv("nokernel", "Conv2D", 2, 3, 8, null, null, "valid", null, null, null, null, null,
                        Arrays.asList(null, 32, 32, 3)),
                conv("toosmall", "Conv2D", 2, 3, 8, List.of(5, 5), null, "valid", null, null, null, null, null,
                        Arrays.asList(null, 3, 3, 3)),
                conv("weird", "Conv2D", 2, 3, 8, List.of(3, 3), null, "reflect", null, null, null, null, null,
                        Arrays.asList(null, 8, 8, 3)),
                conv("ok", "Conv2D", 2, null, 8, List.of(3, 3), null, null, null, null, null, null, "float64",
                        Arrays.asList(null, 8, 8, 3)),
                new TrainingSetup(null, "SGD", "mixed_float16", SRC)));
        assertThat(s.layers()).extracting(ReproLayer::name).containsExactly("ok");
        assertThat(s.batch()).isEqualTo(ReproSpecs.DEFAULT_BATCH);
        assertThat(s.dtype()).isEqualTo(ConvProblem.DType.FLOAT16);
        assertThat(s.mixedPrecision()).isTrue();
        assertThat(s.optimizer()).isEqualTo(ReproSpec.Optimizer.SGD);
        assertThat(s.notes()).anyMatch(n -> n.startsWith("layer open (Conv2D): spatial size 1 of the input is open"))
                .anyMatch(n -> n.startsWith("layer nokernel (Conv2D): kernel size not stated"))
                .anyMatch(n -> n.startsWith("layer toosmall (Conv2D): ") && n.contains("kernel does not fit"))
                .anyMatch(n -> n.startsWith("layer weird (Conv2D): padding reflect not known"))
                .anyMatch(n -> n.startsWith("layer ok (Conv2D): padding not stated; valid"))
                .anyMatch(n -> n.startsWith("batch size not stated; 32 assumed"))
                .anyMatch(n -> n.startsWith("optimizer SGD: momentum is not stated"));
    }

    @Test
    void noConvolutionsGiveAnEmptySpecWithAReason() {
        ReproSpec s = ReproSpecs.fromFacts(List.of(gpu("A100", 40960, null)));
        assertThat(s.layers()).isEmpty();
        assertThat(s.notes()).contains("no convolution layers in the facts: nothing to replay");
        assertThat(s.reporterGpu().memoryUsedMiB()).isNull();
    }

    @Test
    void aLayerStatedTwiceIsReplayedOnce() {
        ConvSpec c = conv("c", "Conv2D", 2, null, 8, List.of(3, 3), null, "same", null, null, null, null, null,
                Arrays.asList(4, 8, 8, 3));
        ReproSpec s = ReproSpecs.fromFacts(List.of(c, c.withSources(List.of(new SourceRef("summary.txt", 3, ""))),
                new TrainingSetup(null, "RMSprop", null, SRC)));
        assertThat(s.layers()).hasSize(1);
        assertThat(s.batch()).isEqualTo(4);
        assertThat(s.optimizer()).isEqualTo(ReproSpec.Optimizer.RMSPROP);
    }
}
