package dev.crashlab.conv;


import static dev.crashlab.conv.CpuConvBackendTest.assertClose;
import static dev.crashlab.conv.CpuConvBackendTest.assertPasses;
import static dev.crashlab.conv.CpuConvBackendTest.channelsLast;
import static dev.crashlab.conv.CpuConvBackendTest.lastD;
import static dev.crashlab.conv.CpuConvBackendTest.naive;
import static dev.crashlab.conv.CpuConvBackendTest.random;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The few-input-channel loops ({@link FewChannelConv}, the path of RGB stems) against the naive loop on seeded random
 * shapes with 1-4 input channels per group: rank 1-3, strides 1-3, dilation, asymmetric padding, groups, transposed
 * layers, widths past a vector and a micro-tile, NHWC and half storage types, each pass; and that the default backend
 * really sends such shapes there.
 */
class FewChannelConvTest {

    /** The few-channel loops on every shape they can compute, however few output channels. */
    static final CpuConvBackend FEW = new CpuConvBackend(2, CpuConvBackend.Kernels.FEW);
    static final CpuConvBackend CPU = new CpuConvBackend(2);

    @AfterAll
    static void close() {
        FEW.close();
        CPU.close();
    }

    /**
     * A random problem with 1-4 input channels per group (output channels, for a transposed layer); about half have at least 8 output channels per group (the
     * default backend's choice of this path), widths up to 70 (several vectors and panels per row, and rows shorter
     * than a vector).
     */
    static ConvProblem fewChannelProblem(Random r, int i, ConvProblem.DType dtype, ConvProblem.Layout layout) {
        while (true) {
            int rank = 1 + r.nextInt(3);
            int groups = 1 + r.nextInt(3);
            int c = groups * (1 + r.nextInt(FewChannelConv.MAX_CHANNELS));
            int k = groups * (r.nextBoolean() ? 8 + r.nextInt(12) : 1 + r.nextInt(7));
            int[] in = new int[rank];
            int[] kernel = new int[rank];
            int[] stride = new int[rank];
            int[] pb = new int[rank];
            int[] pe = new int[rank];
            int[] dil = new int[rank];
            for (int d = 0; d < rank; d++) {
                boolean last = d == rank - 1;
                in[d] = 1 + r.nextInt(rank == 3 ? 6 : last ? 70 : 12);
                kernel[d] = 1 + r.nextInt(rank == 3 ? 3 : 7);
                stride[d] = 1 + r.nextInt(3);
                pb[d] = r.nextInt(4);
                pe[d] = r.nextInt(4);
                dil[d] = 1 + r.nextInt(2);
            }
            // a transposed layer is the plain convolution from its output to its input: few channels at its output
            boolean transposed = r.nextInt(4) == 0;
            try {
                return new ConvProblem("few" + i, rank, 1 + r.nextInt(3), transposed ? k : c, in, transposed ? c : k,
                        kernel, stride, pb, pe, dil, groups,
                        dtype, layout, transposed);
            } catch (IllegalArgumentException kernelDoesNotFit) {
                // draw again
            }
        }
    }

    static boolean runsHere(CpuConvBackend backend, ConvProblem p) {
        ConvGeometry g = ConvGeometry.of(p);
        for (GemmConv.Pass pass : GemmConv.Pass.values()) {
            if (backend.impl(g, pass) != CpuConvBackend.Impl.FEW) {
                return false;
            }
        }
        return true;
    }

    @Test
    void matchesTheNaiveLoopOnRandomFewChannelShapes() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int chosenByDefault = 0;
        int strided = 0;
        int dilated = 0;
        int[] ranks = new int[4];
        int[] channels = new int[FewChannelConv.MAX_CHANNELS + 1];
        int transposed = 0;
        for (int i = 0; i < 200; i++) {
            ConvProblem p = fewChannelProblem(r, i, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW);
            assertThat(runsHere(FEW, p)).as(p + " runs on the few-channel loops").isTrue();
            ConvGeometry g = ConvGeometry.of(p);
            boolean byDefault = runsHere(CPU, p);
            assertThat(byDefault).as(p + ": the default backend's choice").isEqualTo(g.cOutPerGroup() >= PackedGemm.MR);
            chosenByDefault += byDefault ? 1 : 0;
            strided += g.s()[2] > 1 || g.s()[1] > 1 ? 1 : 0;
            dilated += g.dil()[2] > 1 ? 1 : 0;
            ranks[p.rank()]++;
            channels[g.cInPerGroup()]++;
            transposed += p.transposed() ? 1 : 0;
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(FEW, p, x, w, dy, seed);
            if (byDefault) {
                assertPasses(CPU, p, x, w, dy, seed);
            }
        }
        assertThat(chosenByDefault).as("seed " + seed).isGreaterThan(60);
        assertThat(strided).as("seed " + seed).isGreaterThan(80);
        assertThat(dilated).as("seed " + seed).isGreaterThan(60);
        assertThat(transposed).as("seed " + seed).isGreaterThan(20);
        assertThat(ranks[1]).as("seed " + seed).isGreaterThan(30);
        assertThat(ranks[3]).as("seed " + seed).isGreaterThan(30);
        for (int c = 1; c <= FewChannelConv.MAX_CHANNELS; c++) {
            assertThat(channels[c]).as(c + " channels per group, seed " + seed).isGreaterThan(15);
        }
    }

    /**
     * Shapes whose output channels per group are whole tiles of output-channel vectors (64 or 128 per group with 16-lane
     * vectors), where backward-filter keeps its vectors along output channels: half with a 7-wide kernel row at unit
     * dilation (the tiles that follow the kernel's rows), the rest with any width, stride, dilation and groups; and its
     * peak_bytes within the estimator's bound.
     */
    @Test
    void wholeOutputChannelTilesMatchTheNaiveLoop() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int rows = 0;
        int any = 0;
        for (int i = 0; i < 40; i++) {
            ConvProblem q = fewChannelProblem(r, i, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW);
            int kpg = FewChannelConv.OC_TILE * (1 + r.nextInt(2));
            int[] kernel = q.kernel().clone();
            int[] dil = q.dilation().clone();
            int[] in = q.inDims().clone();
            int last = q.rank() - 1;
            if (i % 2 == 0) {
                kernel[last] = 7;
                dil[last] = 1;
                in[last] = Math.max(in[last], 7 + r.nextInt(30));
            }
            // the plain convolution's output channels: a transposed layer's input channels
            int kAll = q.groups() * kpg;
            ConvProblem p;
            try {
                p = new ConvProblem("tiles" + i, q.rank(), q.batch(), q.transposed() ? kAll : q.inChannels(), in,
                        q.transposed() ? q.outChannels() : kAll, kernel, q.stride(), q.padBegin(), q.padEnd(), dil,
                        q.groups(), q.dtype(), q.layout(), q.transposed());
            } catch (IllegalArgumentException kernelDoesNotFit) {
                continue;
            }
            ConvGeometry g = ConvGeometry.of(p);
            assertThat(g.cOutPerGroup()).isEqualTo(kpg);
            assertThat(runsHere(CPU, p)).as(p + ": the default backend's choice").isTrue();
            if (FewChannelConv.ocVectors(g)) {
                rows += FewChannelConv.ocRun(g) ? 1 : 0;
                any += FewChannelConv.ocRun(g) ? 0 : 1;
            }
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(CPU, p, x, w, dy, seed);
            // its per-thread sums and transposed dy blocks are counted, within the estimator's bound
            assertThat(CPU.backwardFilter(p, x, dy).peakBytes()).as(p + " (seed " + seed + ")")
                    .isLessThanOrEqualTo(CpuConvBackend.passBound(p, 2));
        }
        if (PackedGemm.L >= 16) {
            assertThat(rows).as("seed " + seed).isGreaterThan(10);
            assertThat(any).as("seed " + seed).isGreaterThan(10);
        }
    }

    /** The ResNet stem's shape at a small size: 3 channels, 7x7, stride 2, padding 3, 64 filters, on both paths. */
    @Test
    void aStemLayerMatchesTheNaiveLoop() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        ConvProblem p = new ConvProblem("stem", 2, 2, 3, new int[] {37, 70}, 64, new int[] {7, 7}, new int[] {2, 2},
                new int[] {3, 3}, new int[] {3, 3}, new int[] {1, 1}, 1, ConvProblem.DType.FLOAT32,
                ConvProblem.Layout.NCHW, false);
        assertThat(runsHere(CPU, p)).isTrue();
        // backward-data adds its tiles from the registers here (rows a plane row apart); the random shapes whose rows
        // would overlap take the stored tiles' path
        assertThat(FewChannelConv.addsFromRegisters(ConvGeometry.of(p))).isTrue();
        assertPasses(CPU, p, random(r, p.inputElements()), random(r, p.filterElements()), random(r, p.outputElements()),
                seed);
    }

    /**
     * NHWC activations and float16/bfloat16 storage on the few-channel path: inputs already of the storage type, each
     * output within the float32 bound of the naive loop plus half a unit in the last place of the storage type.
     */
    @Test
    void channelsLastAndHalfTypesMatchTheNaiveLoop() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        for (int i = 0; i < 90; i++) {
            ConvProblem.DType dtype = ConvProblem.DType.values()[i % 3];
            ConvProblem.Layout layout = ConvProblem.Layout.values()[i / 3 % 2];
            ConvProblem p = fewChannelProblem(r, i, dtype, layout);
            float[] x = rounded(random(r, p.inputElements()), dtype);
            float[] w = rounded(random(r, p.filterElements()), dtype);
            float[] dy = rounded(random(r, p.outputElements()), dtype);
            int inSpatial = (int) (p.inputElements() / p.batch() / p.inChannels());
            int outSpatial = (int) (p.outputElements() / p.batch() / p.outChannels());
            boolean nhwc = layout == ConvProblem.Layout.NHWC;
            float[] xl = nhwc ? channelsLast(x, p.batch(), p.inChannels(), inSpatial) : x;
            float[] dyl = nhwc ? channelsLast(dy, p.batch(), p.outChannels(), outSpatial) : dy;
            float[] y = FEW.forward(p, xl, w).output();
            float[] dx = FEW.backwardData(p, dyl, w).output();
            float[] dw = FEW.backwardFilter(p, xl, dyl).output();
            double[][] ref = !p.transposed()
                    ? naive(p.batch(), p.inChannels(), p.inDims(), p.outChannels(), p.outDims(), p.kernel(), p.stride(),
                            p.padBegin(), p.dilation(), p.groups(), x, w, dy)
                    : naive(p.batch(), p.outChannels(), p.outDims(), p.inChannels(), p.inDims(), p.kernel(), p.stride(),
                            p.padBegin(), p.dilation(), p.groups(), dy, w, x);
            int fy = p.transposed() ? 1 : 0;
            int fdx = p.transposed() ? 0 : 1;
            double[] wantY = ref[fy];
            double[] magY = ref[3 + fy];
            double[] wantDx = ref[fdx];
            double[] magDx = ref[3 + fdx];
            if (nhwc) {
                wantY = lastD(wantY, p.batch(), p.outChannels(), outSpatial);
                magY = lastD(magY, p.batch(), p.outChannels(), outSpatial);
                wantDx = lastD(wantDx, p.batch(), p.inChannels(), inSpatial);
                magDx = lastD(magDx, p.batch(), p.inChannels(), inSpatial);
            }
            String what = " (" + dtype + ", " + layout + ", seed " + seed + ")";
            assertStored("forward" + what, y, wantY, magY, ref[6 + fy][0], dtype, p);
            assertStored("backward-data" + what, dx, wantDx, magDx, ref[6 + fdx][0], dtype, p);
            assertStored("backward-filter" + what, dw, ref[2], ref[5], ref[8][0], dtype, p);
        }
    }

    /**
     * peak_bytes of the few-channel passes (their padded copies, panels and sums counted) stays within the estimator's
     * bound, in every dtype and layout, on shapes where the default backend picks them.
     */
    @Test
    void peakBytesStayWithinTheEstimatorsBound() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int checked = 0;
        for (int i = 0; i < 150; i++) {
            ConvProblem.DType dtype = ConvProblem.DType.values()[i % 3];
            ConvProblem.Layout layout = ConvProblem.Layout.values()[i / 3 % 2];
            ConvProblem p = fewChannelProblem(r, i, dtype, layout);
            if (!runsHere(CPU, p)) {
                continue;
            }
            checked++;
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            long bound = CpuConvBackend.passBound(p, 2);
            long tensors = 4 * (p.inputElements() + p.filterElements() + p.outputElements());
            for (ConvBackend.PassResult pass : new ConvBackend.PassResult[] {CPU.forward(p, x, w),
                CPU.backwardData(p, dy, w), CPU.backwardFilter(p, x, dy)}) {
                // the padded copy and the packed panels are real scratch: more than the three tensors
                assertThat(pass.peakBytes()).as(p + " (seed " + seed + ")").isLessThanOrEqualTo(bound)
                        .isGreaterThan(tensors);
            }
        }
        assertThat(checked).as("seed " + seed).isGreaterThan(40);
    }

    static float[] rounded(float[] a, ConvProblem.DType dtype) {
        for (int i = 0; i < a.length; i++) {
            a[i] = DTypeRounding.round(a[i], dtype);
        }
        return a;
    }

    /** The float32 bound of {@link CpuConvBackendTest#assertClose}, plus the rounding to the storage type. */
    static void assertStored(String what, float[] got, double[] want, double[] magnitude, double length,
            ConvProblem.DType dtype, ConvProblem p) {
        if (dtype == ConvProblem.DType.FLOAT32) {
            assertClose(what, got, want, magnitude, length, 0, p);
            return;
        }
        // unit roundoff of the storage type, and half its smallest subnormal (float16) for results near zero
        double u = dtype == ConvProblem.DType.FLOAT16 ? 0x1p-11 : 0x1p-8;
        double tiny = dtype == ConvProblem.DType.FLOAT16 ? 0x1p-25 : Float.MIN_NORMAL;
        assertThat(got).as(what).hasSize(want.length);
        for (int i = 0; i < want.length; i++) {
            double f32 = length * 0x1p-23 * magnitude[i] + Float.MIN_NORMAL;
            double tol = f32 + u * (Math.abs(want[i]) + f32) + tiny;
            if (!(Math.abs(got[i] - want[i]) <= tol)) {
                throw new AssertionError(what + " of " + p + " differs at " + i + ": " + got[i] + " vs " + want[i]
                        + " (tolerance " + tol + ")");
            }
        }
    }
}
