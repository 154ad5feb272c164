package dev.crashlab.repro;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.CpuConvBackend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How a replay judges what a backend did: passes, numeric mismatches, out of memory, device errors, TDR risk. */
class ReplayTest {

    static ReproSpec spec(ReproSpec.Mode mode, ConvProblem.DType dtype) {
        return spec(mode, dtype, ConvProblem.Layout.NCHW);
    }

    static ReproSpec spec(ReproSpec.Mode mode, ConvProblem.DType dtype, ConvProblem.Layout layout) {
        return new ReproSpec(List.of(
                new ReproLayer("a", 3, 8, new int[] {9, 9}, new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1},
                        new int[] {0, 0}, new int[] {1, 1}, 1, false),
                new ReproLayer("b", 8, 4, new int[] {5}, new int[] {3}, new int[] {1}, new int[] {2}, new int[] {0},
                        new int[] {2}, 4, false),
                new ReproLayer("c", 4, 6, new int[] {2, 3, 3}, new int[] {2, 2, 2}, new int[] {2, 1, 2},
                        new int[] {0, 1, 0}, new int[] {1, 0, 1}, new int[] {1, 1, 1}, 2, true)),
                3, dtype, false, layout, mode, ReproSpec.Optimizer.SGD, null, List.of());
    }

    /**
     * An NHWC spec replays channels-last: the oracle reads the tensors channels-last (a backend that computed
     * them as NCHW would mismatch), the result says the CPU backend converted them, and no pass holds more
     * than the estimator's bound.
     */
    @Test
    void anNhwcSpecIsReplayedChannelsLastAndSaysSo() {
        try (CpuConvBackend cpu = new CpuConvBackend(2)) {
            ReproSpec spec = spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NHWC);
            ReplayResult r = new Replay(cpu).run(spec);
            assertThat(r.status()).as(r.reason()).isEqualTo(ReplayResult.Status.PASSED);
            assertThat(r.device()).contains("NHWC tensors converted explicitly to channels-first");
            for (int i = 0; i < r.layers().size(); i++) {
                assertThat(r.layers().get(i).peakBytes())
                        .isLessThanOrEqualTo(MemoryEstimator.cpuReplayBytes(spec.problems().get(i), 2));
            }
        }
    }

    @Test
    void theCpuBackendPassesEveryLayerInEveryDtype() {
        for (ConvProblem.DType dtype : ConvProblem.DType.values()) {
            try (CpuConvBackend cpu = new CpuConvBackend(2)) {
                List<Integer> seen = new ArrayList<>();
                ReplayResult r = new Replay(cpu, 0, 5, (i, n, l) -> seen.add(i)).run(spec(ReproSpec.Mode.TRAINING, dtype));
                assertThat(r.status()).as(dtype + ": " + r.reason()).isEqualTo(ReplayResult.Status.PASSED);
                assertThat(seen).containsExactly(0, 1, 2);
                assertThat(r.backend()).isEqualTo("cpu");
                assertThat(r.layers()).allSatisfy(l -> {
                    assertThat(l.status()).isEqualTo(ReplayResult.LayerStatus.PASSED);
                    assertThat(l.kernelMs().forward()).isNotNull();
                    assertThat(l.kernelMs().backwardData()).isNotNull();
                    assertThat(l.kernelMs().backwardFilter()).isNotNull();
                    // float32 differs from the double-precision oracle by accumulation order only; half types by output rounding
                    assertThat(l.maxAbsError()).isNotNull().isLessThan(dtype == ConvProblem.DType.FLOAT32 ? 1e-4 : 0.05);
                    assertThat(l.peakBytes()).isPositive();
                    assertThat(l.tdrRisk()).isFalse();
                });
                assertThat(r.reason()).contains("3 layer(s) passed forward, backward-data and backward-filter");
            }
        }
    }

    @Test
    void inferenceRunsTheForwardPassOnly() {
        try (CpuConvBackend cpu = new CpuConvBackend(1)) {
            ReplayResult r = new Replay(cpu).run(spec(ReproSpec.Mode.INFERENCE, ConvProblem.DType.FLOAT32));
            assertThat(r.status()).isEqualTo(ReplayResult.Status.PASSED);
            assertThat(r.layers()).allSatisfy(l -> {
                assertThat(l.kernelMs().forward()).isNotNull();
                assertThat(l.kernelMs().backwardData()).isNull();
            });
        }
    }

    @Test
    void aWrongOutputIsAMismatch() {
        Faulty b = new Faulty();
        b.corrupt = true;
        ReplayResult r = new Replay(b).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(r.status()).isEqualTo(ReplayResult.Status.FAILED);
        assertThat(r.layers()).allSatisfy(l -> {
            assertThat(l.status()).isEqualTo(ReplayResult.LayerStatus.MISMATCH);
            assertThat(l.message()).startsWith("forward element ");
            assertThat(l.maxAbsError()).isGreaterThan(0.4);
        });
    }

    @Test
    void outOfMemoryFailsTheLayerAndTheReplayGoesOn() {
        Faulty b = new Faulty();
        b.oomLayer = "b";
        // a cap the layers' tensors fit (a smaller one is refused by the replay before the backend is asked)
        ReplayResult r = new Replay(b, 1 << 20, 1, null).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(b.cap).isEqualTo(1 << 20);
        assertThat(r.status()).isEqualTo(ReplayResult.Status.FAILED);
        assertThat(r.memoryCapBytes()).isEqualTo(1 << 20);
        assertThat(r.layers()).extracting(ReplayResult.LayerResult::status).containsExactly(
                ReplayResult.LayerStatus.PASSED, ReplayResult.LayerStatus.OUT_OF_MEMORY, ReplayResult.LayerStatus.PASSED);
        assertThat(r.layers().get(1).error()).isEqualTo("OUT_OF_MEMORY");
        assertThat(r.reason()).startsWith("1 of 3 layer(s) failed: b: out-of-memory (out of memory allocating");
    }

    @Test
    void tensorsLargerThanTheCapAreRefusedBeforeTheyAreMade() {
        Faulty b = new Faulty();
        ReplayResult r = new Replay(b, 16, 1, null).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(r.layers()).extracting(ReplayResult.LayerResult::status).containsOnly(ReplayResult.LayerStatus.OUT_OF_MEMORY);
        assertThat(r.layers().getFirst().message()).contains("alone need").contains("more than the 16 B cap");
    }

    @Test
    void aDeviceErrorSkipsTheLayersAfterIt() {
        Faulty b = new Faulty();
        b.deviceErrorLayer = "a";
        ReplayResult r = new Replay(b).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(r.status()).isEqualTo(ReplayResult.Status.FAILED);
        assertThat(r.layers()).extracting(ReplayResult.LayerResult::status).containsExactly(
                ReplayResult.LayerStatus.DEVICE_ERROR, ReplayResult.LayerStatus.SKIPPED, ReplayResult.LayerStatus.SKIPPED);
        assertThat(r.layers().get(0).error()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
        assertThat(r.layers().get(1).message()).isEqualTo("not run after CUDA_ERROR_ILLEGAL_ADDRESS in a");
    }

    @Test
    void aBackendThatThrowsIsACrash() {
        Faulty b = new Faulty();
        b.throwLayer = "b";
        ReplayResult r = new Replay(b).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(r.status()).isEqualTo(ReplayResult.Status.CRASHED);
        assertThat(r.reason()).contains("boom");
        assertThat(r.layers().get(1).error()).isEqualTo("IllegalStateException");
    }

    @Test
    void aPassOverTwoSecondsIsATdrRisk() {
        Faulty b = new Faulty();
        b.millis = 2500;
        ReplayResult r = new Replay(b).run(spec(ReproSpec.Mode.INFERENCE, ConvProblem.DType.FLOAT32));
        assertThat(r.status()).isEqualTo(ReplayResult.Status.PASSED);
        assertThat(r.layers()).allMatch(ReplayResult.LayerResult::tdrRisk);
        assertThat(r.reason()).contains("3 layer(s) with a pass over the 2000 ms Windows TDR limit");
        b.millis = 1999;
        assertThat(new Replay(b).run(spec(ReproSpec.Mode.INFERENCE, ConvProblem.DType.FLOAT32)).layers())
                .noneMatch(ReplayResult.LayerResult::tdrRisk);
    }

    @Test
    void anUnavailableBackendRunsNothingButStillEstimates() {
        Faulty b = new Faulty();
        b.unavailable = "no CUDA device: libcuda.so.1 not found";
        ReplayResult r = new Replay(b).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
        assertThat(r.status()).isEqualTo(ReplayResult.Status.UNAVAILABLE);
        assertThat(r.reason()).isEqualTo("backend faulty is unavailable: no CUDA device: libcuda.so.1 not found");
        assertThat(r.layers()).isEmpty();
        assertThat(b.calls).isZero();
        assertThat(r.estimate().layers()).hasSize(3);
    }

    @Test
    void theSameSeedGivesTheSameInputs() {
        Faulty a = new Faulty();
        Faulty b = new Faulty();
        new Replay(a, 0, 42, null).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT16));
        new Replay(b, 0, 42, null).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT16));
        assertThat(a.inputSums).isNotEmpty().isEqualTo(b.inputSums);
        Faulty c = new Faulty();
        new Replay(c, 0, 43, null).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT16));
        assertThat(c.inputSums).isNotEqualTo(a.inputSums);
    }

    @Test
    void theJsonHasTheFieldsTheCliAndTheLabRead() throws Exception {
        try (CpuConvBackend cpu = new CpuConvBackend(1)) {
            ReplayResult r = new Replay(cpu).run(spec(ReproSpec.Mode.TRAINING, ConvProblem.DType.FLOAT32));
            JsonNode j = ReproJson.mapper().valueToTree(r);
            assertThat(j.get("status").asText()).isEqualTo("passed");
            assertThat(j.get("backend").asText()).isEqualTo("cpu");
            assertThat(j.has("reason")).isTrue();
            assertThat(j.get("estimate").get("total_bytes").asLong()).isPositive();
            assertThat(j.get("estimate").get("layers")).hasSize(3);
            JsonNode layer = j.get("layers").get(0);
            assertThat(layer.get("status").asText()).isEqualTo("passed");
            assertThat(layer.has("peak_bytes")).isTrue();
            assertThat(layer.get("kernel_ms").has("backward_filter")).isTrue();
            assertThat(layer.has("max_abs_error")).isTrue();
            assertThat(layer.has("tdr_risk")).isTrue();
            ReplayResult back = ReproJson.mapper().treeToValue(j, ReplayResult.class);
            assertThat(back).isEqualTo(r);
            assertThat(ReproJson.mapper().writeValueAsString(ReplayResult.Status.TIMED_OUT)).isEqualTo("\"timed-out\"");
        }
    }

    /**
     * The replay hands each pass an output array it owns and reuses them by length: the second of two layers of one
     * shape gets the first one's arrays back (inputs and outputs alike), a layer of another shape new ones, and the
     * arrays of lengths a layer does not use are let go, so the replay holds at most one layer's tensors.
     */
    @Test
    void theReplayReusesItsArraysFromLayerToLayer() {
        // tensors of 280, 288 and 560 floats, then of 200, 64 and 800
        ReproLayer same = new ReproLayer("same", 4, 8, new int[] {5, 7}, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        ReproLayer again = new ReproLayer("again", 4, 8, new int[] {5, 7}, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        ReproLayer other = new ReproLayer("other", 4, 16, new int[] {5, 5}, new int[] {1, 1}, new int[] {1, 1},
                new int[] {0, 0}, new int[] {0, 0}, new int[] {1, 1}, 1, false);
        ReproSpec spec = new ReproSpec(List.of(same, again, other), 2,
                ConvProblem.DType.FLOAT32, false, ConvProblem.Layout.NCHW, ReproSpec.Mode.TRAINING,
                ReproSpec.Optimizer.SGD, null, List.of());
        // per layer, every array a pass was handed (inputs and output), by identity
        List<java.util.Set<float[]>> arrays = new ArrayList<>();
        try (CpuConvBackend cpu = new CpuConvBackend(2)) {
            ConvBackend recording = new ConvBackend() {
                @Override public String name() { return "cpu"; }
                @Override public Optional<String> unavailableReason() { return Optional.empty(); }
                @Override public String device() { return cpu.device(); }
                @Override public void memoryCap(long bytes) { cpu.memoryCap(bytes); }
                @Override public PassResult forward(ConvProblem p, float[] x, float[] w) {
                    throw new AssertionError("the replay asked for a new output array");
                }
                @Override public PassResult backwardData(ConvProblem p, float[] dy, float[] w) {
                    throw new AssertionError("the replay asked for a new output array");
                }
                @Override public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) {
                    throw new AssertionError("the replay asked for a new output array");
                }
                void seen(ConvProblem p, float[]... a) {
                    if (arrays.isEmpty() || !p.name().equals(names.get(names.size() - 1))) {
                        arrays.add(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
                        names.add(p.name());
                    }
                    arrays.get(arrays.size() - 1).addAll(List.of(a));
                }
                final List<String> names = new ArrayList<>();
                @Override public PassResult forward(ConvProblem p, float[] x, float[] w, float[] y) throws BackendException {
                    seen(p, x, w, y);
                    return cpu.forward(p, x, w, y);
                }
                @Override public PassResult backwardData(ConvProblem p, float[] dy, float[] w, float[] dx)
                        throws BackendException {
                    seen(p, dy, w, dx);
                    return cpu.backwardData(p, dy, w, dx);
                }
                @Override public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy, float[] dw)
                        throws BackendException {
                    seen(p, x, dy, dw);
                    return cpu.backwardFilter(p, x, dy, dw);
                }
                @Override public void close() {}
            };
            ReplayResult r = new Replay(recording).run(spec);
            assertThat(r.status()).as(r.reason()).isEqualTo(ReplayResult.Status.PASSED);
        }
        assertThat(arrays).hasSize(3);
        assertThat(arrays.get(0)).as("x, w, y, dy, dx, dw").hasSize(6);
        assertThat(arrays.get(1)).as("the second layer of the shape gets the first one's arrays").isEqualTo(arrays.get(0));
        assertThat(arrays.get(2)).hasSize(6).doesNotContainAnyElementsOf(arrays.get(0));
    }

    @Test
    void theReplaysArraysAreBoundedToOneLayer() {
        Replay.TensorArrays arrays = new Replay.TensorArrays();
        arrays.keepOnly(10, 20);
        float[] a = arrays.take(10);
        float[] b = arrays.take(10);
        float[] c = arrays.take(20);
        assertThat(a).isNotSameAs(b).hasSize(10);
        arrays.giveBackAll();
        assertThat(arrays.floats()).isEqualTo(40);
        arrays.keepOnly(20, 30); // the next layer uses 20 and 30: both arrays of 10 go
        assertThat(arrays.floats()).isEqualTo(20);
        assertThat(arrays.take(20)).isSameAs(c);
        assertThat(arrays.take(30)).hasSize(30);
        assertThat(arrays.floats()).isEqualTo(50);
        arrays.giveBackAll();
        arrays.keepOnly();
        assertThat(arrays.floats()).isZero();
    }

    /** A backend that computes correctly (through the CPU backend) unless told to fail in one way. */
    static final class Faulty implements ConvBackend {
        final CpuConvBackend cpu = new CpuConvBackend(1);
        String unavailable;
        boolean corrupt;
        String oomLayer;
        String deviceErrorLayer;
        String throwLayer;
        double millis = 1;
        long cap = -1;
        int calls;
        final List<Double> inputSums = new ArrayList<>();

        @Override public String name() { return "faulty"; }
        @Override public Optional<String> unavailableReason() { return Optional.ofNullable(unavailable); }
        @Override public String device() { return "test double"; }
        @Override public void memoryCap(long bytes) { cap = bytes; }

        private PassResult judge(ConvProblem p, PassResult r, float[] in) throws BackendException {
            calls++;
            double sum = 0;
            for (float v : in) {
                sum += v;
            }
            inputSums.add(sum);
            if (p.name().equals(oomLayer)) {
                throw new OutOfMemory("forward output", 4 * p.outputElements(), 10);
            }
            if (p.name().equals(deviceErrorLayer)) {
                throw new DeviceError("CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered");
            }
            if (p.name().equals(throwLayer)) {
                throw new IllegalStateException("boom");
            }
            float[] out = r.output();
            if (corrupt) {
                for (int i = 0; i < out.length; i++) {
                    out[i] += 0.5f;
                }
            }
            return new PassResult(out, millis, r.peakBytes());
        }

        @Override public PassResult forward(ConvProblem p, float[] x, float[] w) throws BackendException {
            return judge(p, cpu.forward(p, x, w), x);
        }
        @Override public PassResult backwardData(ConvProblem p, float[] dy, float[] w) throws BackendException {
            return judge(p, cpu.backwardData(p, dy, w), dy);
        }
        @Override public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) throws BackendException {
            return judge(p, cpu.backwardFilter(p, x, dy), dy);
        }
        @Override public void close() { cpu.close(); }
    }
}
