package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The spec's JSON form: what it reads, what it refuses (with the field's path), and that writing round-trips. */
class ReproSpecJsonTest {

    static final String RESNET_STEM = """
            {
              "format": 1,
              "batch": 16,
              "dtype": "float16",
              "mixed_precision": true,
              "layout": "NHWC",
              "mode": "training",
              "optimizer": "momentum",
              "reporter_gpu": {"name": "RTX 2060", "memory_total_mib": 6144, "memory_used_mib": 412},
              "notes": ["hand-written"],
              "layers": [
                {"name": "conv1", "in_channels": 3, "out_channels": 64, "input": [224, 224], "kernel": [7, 7],
                 "stride": [2, 2], "padding": "same"},
                {"name": "res2a", "in_channels": 64, "out_channels": 64, "input": [56, 56], "kernel": [3, 3],
                 "pad_begin": [1, 1], "pad_end": [1, 1], "groups": 2},
                {"name": "up", "in_channels": 64, "out_channels": 32, "input": [9], "kernel": [4], "stride": [2],
                 "transposed": true}
              ]
            }
            """;

    @Test
    void readsEveryField() {
        ReproSpecJson.Read r = ReproSpecJson.read(RESNET_STEM);
        assertThat(r.problems()).isEmpty();
        ReproSpec s = r.spec();
        assertThat(s.batch()).isEqualTo(16);
        assertThat(s.dtype()).isEqualTo(ConvProblem.DType.FLOAT16);
        assertThat(s.mixedPrecision()).isTrue();
        assertThat(s.layout()).isEqualTo(ConvProblem.Layout.NHWC);
        assertThat(s.mode()).isEqualTo(ReproSpec.Mode.TRAINING);
        assertThat(s.optimizer()).isEqualTo(ReproSpec.Optimizer.MOMENTUM);
        assertThat(s.reporterGpu()).isEqualTo(new ReproSpec.ReporterGpu("RTX 2060", 6144, 412L));
        assertThat(s.notes()).containsExactly("hand-written");
        assertThat(s.layers()).hasSize(3);
        // same with a 7x7 kernel, stride 2, on 224: output 112, total padding (112-1)*2+7-224 = 5, split 2 / 3
        ReproLayer conv1 = s.layers().get(0);
        assertThat(conv1.padBegin()).containsExactly(2, 2);
        assertThat(conv1.padEnd()).containsExactly(3, 3);
        assertThat(conv1.stride()).containsExactly(2, 2);
        assertThat(conv1.dilation()).containsExactly(1, 1);
        assertThat(s.problems().get(0).outDims()).containsExactly(112, 112);
        assertThat(s.layers().get(1).groups()).isEqualTo(2);
        ConvProblem up = s.problems().get(2);
        assertThat(up.transposed()).isTrue();
        assertThat(up.rank()).isEqualTo(1);
        assertThat(up.outDims()).containsExactly((9 - 1) * 2 + 4);
        assertThat(up.batch()).isEqualTo(16);
    }

    @Test
    void writingAndReadingAgainGivesTheSameSpec() {
        ReproSpec s = ReproSpecJson.read(RESNET_STEM).spec();
        String written = ReproSpecJson.write(s);
        assertThat(written).contains("\"format\" : 1", "\"pad_begin\"", "\"mixed_precision\" : true")
                .doesNotContain("\"padding\"");
        ReproSpecJson.Read again = ReproSpecJson.read(written);
        assertThat(again.problems()).isEmpty();
        assertThat(again.spec()).isEqualTo(s);
    }

    @Test
    void defaultsFillWhatALayerLeavesOut() {
        ReproSpec s = ReproSpecJson.read("""
                {"format": 1, "batch": 2, "layers": [{"in_channels": 4, "out_channels": 8, "input": [5, 6, 7], "kernel": [1, 3, 3]}]}
                """).spec();
        assertThat(s.dtype()).isEqualTo(ConvProblem.DType.FLOAT32);
        assertThat(s.layout()).isEqualTo(ConvProblem.Layout.NHWC);
        assertThat(s.mode()).isEqualTo(ReproSpec.Mode.TRAINING);
        assertThat(s.optimizer()).isEqualTo(ReproSpec.Optimizer.ADAM);
        assertThat(s.reporterGpu()).isNull();
        ReproLayer l = s.layers().getFirst();
        assertThat(l.name()).isEqualTo("layer0");
        assertThat(l.rank()).isEqualTo(3);
        assertThat(l.stride()).containsExactly(1, 1, 1);
        assertThat(l.padBegin()).containsExactly(0, 0, 0);
        assertThat(l.groups()).isEqualTo(1);
        assertThat(l.transposed()).isFalse();
    }

    @Test
    void everyBadFieldIsReportedWithItsPath() {
        ReproSpecJson.Read r = ReproSpecJson.read("""
                {"format": 1, "batch": 0, "dtype": "int8", "kernal": 3,
                 "reporter_gpu": {"memory_total_mib": 100, "memory_used_mib": 200},
                 "layers": [
                   {"in_channels": 3, "out_channels": 8, "input": [32, 32], "kernel": [3]},
                   {"in_channels": 3, "out_channels": 8, "input": [32, 32], "kernel": [3, 3], "groups": 2},
                   {"in_channels": 3, "out_channels": 8, "input": [2, 2], "kernel": [5, 5]},
                   {"in_channels": 3, "out_channels": 8, "input": [8, 8], "kernel": [3, 3], "padding": "reflect"},
                   {"in_channels": 3, "out_channels": 8, "input": [8, 8], "kernel": [3, 3], "stride": [1, -1]}
                 ]}
                """);
        assertThat(r.ok()).isFalse();
        assertThat(r.spec()).isNull();
        assertThat(r.problems()).extracting(SpecProblem::path).containsExactly(
                "kernal", "batch", "dtype", "reporter_gpu.memory_used_mib", "layers[0].kernel", "layers[1]", "layers[2]",
                "layers[3].padding", "layers[4].stride[1]");
        assertThat(r.problems().get(2).reason()).contains("float32, float16, bfloat16", "int8");
        assertThat(r.problems().get(5).reason()).contains("2 groups do not divide 3 input");
        assertThat(r.problems().get(6).reason()).contains("kernel does not fit");
    }

    /**
     * Issue 26's note: sizes each within the limit whose product overflows (a 2^100-element input) gave a 500 from the
     * estimator's int arithmetic; now the reader refuses the layer in words, and a large layer within the limit is
     * estimated without throwing (the CPU bound saturates).
     */
    @Test
    void tensorsPastTheElementLimitAreRefusedInWordsAndLargeOnesAreEstimated() {
        ReproSpecJson.Read r = ReproSpecJson.read("""
                {"format": 1, "batch": 1048576, "mode": "training", "layers": [
                   {"name": "ok", "in_channels": 3, "out_channels": 8, "input": [32, 32], "kernel": [3, 3]},
                   {"name": "huge", "in_channels": 1048576, "out_channels": 1048576, "input": [1048576, 1048576, 1048576],
                    "kernel": [1, 1, 1]}
                 ]}
                """);
        assertThat(r.ok()).isFalse();
        assertThat(r.problems()).extracting(SpecProblem::path).containsExactly("layers[1]");
        assertThat(r.problems().get(0).reason()).contains("huge", "input tensor", "more than 2^63", "2^40");

        // 2^35 input elements (a real training batch on a large card): accepted, estimated, no exception
        ReproSpecJson.Read big = ReproSpecJson.read("""
                {"format": 1, "batch": 512, "mode": "training", "optimizer": "adam", "layers": [
                   {"name": "wide", "in_channels": 1024, "out_channels": 1024, "input": [256, 256], "kernel": [3, 3],
                    "padding": "same"}
                 ]}
                """);
        assertThat(big.problems()).isEmpty();
        MemoryEstimate e = MemoryEstimator.estimate(big.spec());
        assertThat(e.totalBytes()).isGreaterThan(2L * 512 * 1024 * 256 * 256 * 4);
        assertThat(e.layers().get(0).cpuReplayBytes()).isGreaterThan(4L * 512 * 1024 * 256 * 256); // or Long.MAX_VALUE: saturated
        assertThat(e.layers().get(0).workspaceBytes()).isEqualTo(MemoryEstimator.WORKSPACE_LIMIT_BYTES);
    }

    @Test
    void notJsonAndWrongShapesAreProblemsNotExceptions() {
        for (String bad : List.of("", "{", "[1, 2]", "null", "\"spec\"", "{\"format\": 2, \"batch\": 1, \"layers\": []}",
                "{\"format\": 1, \"batch\": 1, \"layers\": []}", "{\"format\": 1, \"batch\": 1.5, \"layers\": {}}",
                "{\"format\": 1, \"batch\": 1, \"layers\": [7, null, {\"input\": \"x\"}]}",
                "{\"format\": 1, \"batch\": 99999999999, \"layers\": [{\"input\": [1,2,3,4]}]}")) {
            ReproSpecJson.Read r = ReproSpecJson.read(bad);
            assertThat(r.ok()).as(bad).isFalse();
            assertThat(r.problems()).as(bad).isNotEmpty().allSatisfy(p -> assertThat(p.reason()).isNotBlank());
        }
        assertThat(ReproSpecJson.read("{\"format\": 2}").problems().getFirst())
                .isEqualTo(new SpecProblem("format", "is 2; this version reads format 1"));
        assertThat(ReproSpecJson.read("{").problems().getFirst().reason()).startsWith("not JSON at line 1");
    }
}
