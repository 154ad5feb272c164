package dev.crashlab.conv;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The CPU backend against a naive direct loop written plainly here (seeded random shapes), hand-computed
 * cases, and the adjoint identity that ties the three passes together.
 */
class CpuConvBackendTest {

    static final CpuConvBackend CPU = new CpuConvBackend(2);
    /** The packed-product kernels on every shape, however small (the default picks them for 8+ channels). */
    static final CpuConvBackend GEMM = new CpuConvBackend(2, CpuConvBackend.Kernels.GEMM);
    /** The in-place-row kernels on every shape they apply to, however small. */
    static final CpuConvBackend SHIFT = new CpuConvBackend(2, CpuConvBackend.Kernels.SHIFT);
    /** The direct loops on every shape. */
    static final CpuConvBackend DIRECT = new CpuConvBackend(2, CpuConvBackend.Kernels.DIRECT);

    @AfterAll
    static void close() {
        CPU.close();
        GEMM.close();
        SHIFT.close();
        DIRECT.close();
    }

    /** A random problem covering rank 1-3, stride, dilation, groups, asymmetric padding and transposed layers. */
    static ConvProblem randomProblem(Random r, int i) {
        while (true) {
            int rank = 1 + r.nextInt(3);
            int groups = 1 + r.nextInt(3);
            int c = groups * (1 + r.nextInt(3));
            // half the cases have multiples of 4 output channels per group: the blocked forward pass's path
            int k = groups * (1 + r.nextInt(3)) * (r.nextBoolean() ? CpuConvBackend.BLOCK : 1);
            int[] in = new int[rank];
            int[] kernel = new int[rank];
            int[] stride = new int[rank];
            int[] pb = new int[rank];
            int[] pe = new int[rank];
            int[] dil = new int[rank];
            for (int d = 0; d < rank; d++) {
                in[d] = 1 + r.nextInt(rank == 3 ? 5 : 9);
                kernel[d] = 1 + r.nextInt(3);
                stride[d] = 1 + r.nextInt(3);
                pb[d] = r.nextInt(3);
                pe[d] = r.nextInt(3);
                dil[d] = 1 + r.nextInt(2);
            }
            boolean transposed = r.nextInt(4) == 0;
            try {
                return new ConvProblem("case" + i, rank, 1 + r.nextInt(3), c, in, k, kernel, stride, pb, pe, dil, groups,
                        ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, transposed);
            } catch (IllegalArgumentException kernelDoesNotFit) {
                // draw again
            }
        }
    }

    static float[] random(Random r, long n) {
        float[] a = new float[(int) n];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextFloat() * 2 - 1;
        }
        return a;
    }

    /**
     * The definition, with nothing clever: for every output position of the plain convolution and every
     * kernel tap, add x * w; backward-data and backward-filter scatter the same products to dx and dw.
     * Returns {y, dx, dw} of the plain convolution with input x (cIn channels, dims in) and output gradient dy,
     * then the sums of the magnitudes of each element's terms {|y|, |dx|, |dw|}, then each pass's reduction length
     * (the most terms one element can add) as a one-element array {Ly, Ldx, Ldw}.
     */
    static double[][] naive(int n, int cIn, int[] in, int cOut, int[] out, int[] k, int[] s, int[] pb, int[] dil,
            int groups, float[] x, float[] w, float[] dy) {
        int rank = in.length;
        int inSize = 1;
        int outSize = 1;
        int kSize = 1;
        for (int d = 0; d < rank; d++) {
            inSize *= in[d];
            outSize *= out[d];
            kSize *= k[d];
        }
        int cpg = cIn / groups;
        int kpg = cOut / groups;
        double[] y = new double[n * cOut * outSize];
        double[] dx = new double[n * cIn * inSize];
        double[] dw = new double[cOut * cpg * kSize];
        double[] my = new double[y.length];
        double[] mdx = new double[dx.length];
        double[] mdw = new double[dw.length];
        int[] o = new int[rank];
        int[] t = new int[rank];
        for (int b = 0; b < n; b++) {
            for (int ko = 0; ko < cOut; ko++) {
                for (int oi = 0; oi < outSize; oi++) {
                    unflatten(oi, out, o);
                    for (int cc = 0; cc < cpg; cc++) {
                        int c = ko / kpg * cpg + cc;
                        for (int ti = 0; ti < kSize; ti++) {
                            unflatten(ti, k, t);
                            int ii = 0;
                            boolean inside = true;
                            for (int d = 0; d < rank; d++) {
                                int pos = o[d] * s[d] - pb[d] + t[d] * dil[d];
                                inside &= pos >= 0 && pos < in[d];
                                ii = ii * in[d] + pos;
                            }
                            if (!inside) {
                                continue;
                            }
                            int xi = (b * cIn + c) * inSize + ii;
                            int wi = (ko * cpg + cc) * kSize + ti;
                            int yi = (b * cOut + ko) * outSize + oi;
                            y[yi] += (double) x[xi] * w[wi];
                            dx[xi] += (double) dy[yi] * w[wi];
                            dw[wi] += (double) x[xi] * dy[yi];
                            my[yi] += Math.abs((double) x[xi] * w[wi]);
                            mdx[xi] += Math.abs((double) dy[yi] * w[wi]);
                            mdw[wi] += Math.abs((double) x[xi] * dy[yi]);
                        }
                    }
                }
            }
        }
        return new double[][] {y, dx, dw, my, mdx, mdw,
            {cpg * kSize}, {kpg * kSize}, {(double) n * outSize}};
    }

    static void unflatten(int index, int[] dims, int[] into) {
        for (int d = dims.length - 1; d >= 0; d--) {
            into[d] = index % dims[d];
            index /= dims[d];
        }
    }

    /**
     * Each element within the float32 error bound of a sum of {@code length} terms: length x 2^-23 x the sum of the
     * terms' magnitudes (twice the unit roundoff per addition, so any order of summation and blocking fits), plus
     * the smallest normal float for sums that cancel to nothing.
     */
    static void assertClose(String what, float[] got, double[] want, double[] magnitude, double length, long seed,
            ConvProblem p) {
        assertThat(got).as(what).hasSize(want.length);
        for (int i = 0; i < want.length; i++) {
            double tol = length * 0x1p-23 * magnitude[i] + Float.MIN_NORMAL;
            if (!(Math.abs(got[i] - want[i]) <= tol)) {
                throw new AssertionError(what + " of " + p + " differs at " + i + ": " + got[i] + " vs " + want[i]
                        + " (tolerance " + tol + ", seed " + seed + ")");
            }
        }
    }

    static void assertPasses(CpuConvBackend backend, ConvProblem p, float[] x, float[] w, float[] dy, long seed)
            throws Exception {
        String name = backend == GEMM ? " [packed]" : backend == SHIFT ? " [in place]" : backend == DIRECT ? " [direct]" : "";
        float[] y;
        float[] dx;
        float[] dw;
        // the same passes into output arrays the caller owns, full of NaN: an element a pass leaves alone, or adds
        // into without clearing first, stays NaN and fails the comparison
        float[] yInto = nans(p.outputElements());
        float[] dxInto = nans(p.inputElements());
        float[] dwInto = nans(p.filterElements());
        try {
            y = backend.forward(p, x, w).output();
            dx = backend.backwardData(p, dy, w).output();
            dw = backend.backwardFilter(p, x, dy).output();
            assertThat(backend.forward(p, x, w, yInto).output()).isSameAs(yInto);
            assertThat(backend.backwardData(p, dy, w, dxInto).output()).isSameAs(dxInto);
            assertThat(backend.backwardFilter(p, x, dy, dwInto).output()).isSameAs(dwInto);
        } catch (RuntimeException e) {
            throw new AssertionError(p + name + " (seed " + seed + ")", e);
        }
        assertAgainstNaive(p, name, seed, x, w, dy, y, dx, dw);
        assertAgainstNaive(p, name + " [into the caller's arrays]", seed, x, w, dy, yInto, dxInto, dwInto);
    }

    static float[] nans(long n) {
        float[] a = new float[(int) n];
        java.util.Arrays.fill(a, Float.NaN);
        return a;
    }

    static void assertAgainstNaive(ConvProblem p, String name, long seed, float[] x, float[] w, float[] dy, float[] y,
            float[] dx, float[] dw) {
        double[][] ref;
        if (!p.transposed()) {
            ref = naive(p.batch(), p.inChannels(), p.inDims(), p.outChannels(), p.outDims(), p.kernel(), p.stride(),
                    p.padBegin(), p.dilation(), p.groups(), x, w, dy);
            assertClose("forward" + name, y, ref[0], ref[3], ref[6][0], seed, p);
            assertClose("backward-data" + name, dx, ref[1], ref[4], ref[7][0], seed, p);
            assertClose("backward-filter" + name, dw, ref[2], ref[5], ref[8][0], seed, p);
        } else {
            // a transposed layer is the plain convolution from its output to its input, run backwards:
            // its forward is that convolution's backward-data, and so on
            ref = naive(p.batch(), p.outChannels(), p.outDims(), p.inChannels(), p.inDims(), p.kernel(), p.stride(),
                    p.padBegin(), p.dilation(), p.groups(), dy, w, x);
            assertClose("forward (transposed)" + name, y, ref[1], ref[4], ref[7][0], seed, p);
            assertClose("backward-data (transposed)" + name, dx, ref[0], ref[3], ref[6][0], seed, p);
            assertClose("backward-filter (transposed)" + name, dw, ref[2], ref[5], ref[8][0], seed, p);
        }
    }

    @Test
    void matchesTheNaiveLoopOnRandomShapes() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int transposed = 0;
        int grouped = 0;
        int[] ranks = new int[4];
        int blocked = 0;
        for (int i = 0; i < 300; i++) {
            ConvProblem p = randomProblem(r, i);
            transposed += p.transposed() ? 1 : 0;
            grouped += p.groups() > 1 ? 1 : 0;
            ranks[p.rank()]++;
            blocked += p.outChannels() / p.groups() % CpuConvBackend.BLOCK == 0 ? 1 : 0;
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(GEMM, p, x, w, dy, seed);
            assertPasses(SHIFT, p, x, w, dy, seed);
            assertPasses(DIRECT, p, x, w, dy, seed);
            assertPasses(CPU, p, x, w, dy, seed);
        }
        assertThat(transposed).as("seed " + seed).isGreaterThan(30);
        assertThat(grouped).as("seed " + seed).isGreaterThan(100);
        assertThat(ranks[1]).as("seed " + seed).isGreaterThan(50);
        assertThat(ranks[3]).as("seed " + seed).isGreaterThan(50);
        assertThat(blocked).as("seed " + seed).isGreaterThan(100);
    }

    /**
     * <conv(x, w), dy> = <x, bwdData(dy, w)> = <w, bwdFilter(x, dy)>: all three are the same sum of x * w * dy over
     * every multiply-add. Each side's float32 error is at most its pass's reduction length x 2^-23 x T, where T is
     * that sum in magnitudes (computed as <conv(|x|, |w|), |dy|>), so two sides differ by at most twice the
     * longest reduction's bound.
     */
    @Test
    void thePassesAreAdjoint() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        for (int i = 0; i < 100; i++) {
            ConvProblem p = randomProblem(r, i);
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            double magnitude = dot(CPU.forward(p, abs(x), abs(w)).output(), abs(dy));
            ConvGeometry g = ConvGeometry.of(p);
            long longest = Math.max((long) g.cInPerGroup() * g.kernelVolume(),
                    Math.max((long) g.cOutPerGroup() * g.kernelVolume(), (long) g.n() * g.outSpatial()));
            double tolerance = 2 * longest * 0x1p-23 * magnitude * 1.01 + Float.MIN_NORMAL;
            for (CpuConvBackend backend : new CpuConvBackend[] {GEMM, SHIFT, DIRECT}) {
                double a = dot(backend.forward(p, x, w).output(), dy);
                double b = dot(x, backend.backwardData(p, dy, w).output());
                double c = dot(w, backend.backwardFilter(p, x, dy).output());
                String which = (backend == GEMM ? "packed " : backend == SHIFT ? "in place " : "direct ") + p + " (seed " + seed + ")";
                assertThat(Math.abs(a - b)).as("<conv(x,w),dy> vs <x,bwdData(dy,w)> of " + which)
                        .isLessThanOrEqualTo(tolerance);
                assertThat(Math.abs(a - c)).as("<conv(x,w),dy> vs <w,bwdFilter(x,dy)> of " + which)
                        .isLessThanOrEqualTo(tolerance);
            }
        }
    }

    static float[] abs(float[] a) {
        float[] r = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = Math.abs(a[i]);
        }
        return r;
    }

    static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }

    static ConvProblem p2(int c, int h, int w, int k, int kh, int kw, int s, int pb, int pe, int dil, int groups, boolean t) {
        return new ConvProblem("hand", 2, 1, c, new int[] {h, w}, k, new int[] {kh, kw}, new int[] {s, s},
                new int[] {pb, pb}, new int[] {pe, pe}, new int[] {dil, dil}, groups, ConvProblem.DType.FLOAT32,
                ConvProblem.Layout.NCHW, t);
    }

    @Test
    void handComputedThreeByThree() throws Exception {
        // x = 1..9 in a 3x3 image, w = 2x2 [[1, 0], [0, -1]]: y[i][j] = x[i][j] - x[i+1][j+1] = -4 everywhere
        ConvProblem p = p2(1, 3, 3, 1, 2, 2, 1, 0, 0, 1, 1, false);
        float[] x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        float[] w = {1, 0, 0, -1};
        assertThat(CPU.forward(p, x, w).output()).containsExactly(-4, -4, -4, -4);
        // dx scatters dy = [1, 2; 3, 4] through w: +dy at its own place, -dy one down and right
        assertThat(CPU.backwardData(p, new float[] {1, 2, 3, 4}, w).output())
                .containsExactly(1, 2, 0, 3, 3, -2, 0, -3, -4);
        // dw[a][b] = sum dy[i][j] * x[i+a][j+b] with dy = all ones: sums of the four 2x2 windows
        assertThat(CPU.backwardFilter(p, x, new float[] {1, 1, 1, 1}).output()).containsExactly(12, 16, 24, 28);
    }

    @Test
    void handComputedStridePaddingDilationAndGroups() throws Exception {
        // 1D, x = [1, 2, 3, 4, 5], kernel [1, 1] dilated by 2, padding 1 before: taps at -1+0 and -1+2
        ConvProblem p = new ConvProblem("d", 1, 1, 1, new int[] {5}, 1, new int[] {2}, new int[] {2}, new int[] {1},
                new int[] {0}, new int[] {2}, 1, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
        assertThat(p.outDims()).containsExactly(2);
        // o=0: x[-1] + x[1] = 2; o=1: x[1] + x[3] = 6
        assertThat(CPU.forward(p, new float[] {1, 2, 3, 4, 5}, new float[] {1, 1}).output()).containsExactly(2, 6);
        // two groups of one channel: each output channel sees only its own input channel
        ConvProblem g = p2(2, 1, 1, 2, 1, 1, 1, 0, 0, 1, 2, false);
        assertThat(CPU.forward(g, new float[] {3, 5}, new float[] {2, 10}).output()).containsExactly(6, 50);
    }

    @Test
    void handComputedTransposed() throws Exception {
        // a stride-2 transposed 1D layer with kernel [1, 1] copies each input to two outputs: [a, a, b, b]
        ConvProblem p = new ConvProblem("t", 1, 1, 1, new int[] {2}, 1, new int[] {2}, new int[] {2}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, true);
        assertThat(p.outDims()).containsExactly(4);
        assertThat(CPU.forward(p, new float[] {3, 7}, new float[] {1, 1}).output()).containsExactly(3, 3, 7, 7);
        assertThat(CPU.backwardData(p, new float[] {1, 2, 3, 4}, new float[] {1, 1}).output()).containsExactly(3, 7);
        // dw[t] = sum_i x[i] * dy[2i + t]
        assertThat(CPU.backwardFilter(p, new float[] {3, 7}, new float[] {1, 2, 3, 4}).output()).containsExactly(24, 34);
    }

    @Test
    void halfTypesRoundInputsAndOutputs() throws Exception {
        ConvProblem p = new ConvProblem("h", 1, 1, 1, new int[] {1}, 1, new int[] {1}, new int[] {1}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, ConvProblem.DType.FLOAT16, ConvProblem.Layout.NCHW, false);
        // 1 + 2^-12 is not a float16: the input rounds to 1, and 3 * 1.0001 rounds to the nearest float16 of 3
        float[] y = CPU.forward(p, new float[] {1 + 0x1p-12f}, new float[] {3}).output();
        assertThat(y).containsExactly(3f);
        ConvProblem b = new ConvProblem("b", 1, 1, 1, new int[] {1}, 1, new int[] {1}, new int[] {1}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, ConvProblem.DType.BFLOAT16, ConvProblem.Layout.NCHW, false);
        // bfloat16 keeps 8 significant bits: 1 + 2^-8 rounds (to even) to 1, 1 + 2^-7 is kept
        assertThat(CPU.forward(b, new float[] {1 + 0x1p-8f}, new float[] {1}).output()).containsExactly(1f);
        assertThat(CPU.forward(b, new float[] {1 + 0x1p-7f}, new float[] {1}).output()).containsExactly(1 + 0x1p-7f);
    }

    @Test
    void theMemoryCapRefusesAPassThatDoesNotFit() throws Exception {
        ConvProblem p = p2(4, 16, 16, 8, 3, 3, 1, 1, 1, 1, 1, false);
        float[] x = new float[(int) p.inputElements()];
        float[] w = new float[(int) p.filterElements()];
        try (CpuConvBackend capped = new CpuConvBackend(1)) {
            ConvGeometry g = ConvGeometry.of(p);
            // the tensors, plus the packed kernels' scratch (packed filter, panels) where they run
            long needed = 4 * (p.inputElements() + p.filterElements() + p.outputElements())
                    + capped.scratchBytes(g, GemmConv.Pass.FORWARD);
            capped.memoryCap(needed);
            // the peak counts the scratch the kernels really allocated, at most the bound checked against the cap
            assertThat(capped.forward(p, x, w).peakBytes()).isBetween(4 * (p.inputElements() + p.filterElements()
                    + p.outputElements()) + 1, needed);
            capped.memoryCap(needed - 1);
            assertThatThrownBy(() -> capped.forward(p, x, w)).isInstanceOf(ConvBackend.OutOfMemory.class)
                    .hasMessageContaining("forward output")
                    .satisfies(e -> assertThat(((ConvBackend.OutOfMemory) e).requestedBytes()).isEqualTo(4 * p.outputElements()));
            capped.memoryCap(0);
            assertThat(capped.forward(p, x, w).output()).hasSize((int) p.outputElements());
        }
    }

    /** The transpose of a channels-first tensor to channels-last, written out here (not the backend's helper). */
    static float[] channelsLast(float[] a, int n, int c, int spatial) {
        float[] r = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            int b = i / (c * spatial);
            int ch = i / spatial % c;
            int s = i % spatial;
            r[(b * spatial + s) * c + ch] = a[i];
        }
        return r;
    }

    /**
     * NHWC problems take and give their activations channels-last: the same random shapes, their tensors
     * transposed here, must give the naive loop's results transposed (filters keep their layout).
     */
    @Test
    void nhwcTensorsAreChannelsLastAgainstTheNaiveLoop() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        for (int i = 0; i < 100; i++) {
            ConvProblem q = randomProblem(r, i);
            ConvProblem p = new ConvProblem(q.name(), q.rank(), q.batch(), q.inChannels(), q.inDims(), q.outChannels(),
                    q.kernel(), q.stride(), q.padBegin(), q.padEnd(), q.dilation(), q.groups(), q.dtype(),
                    ConvProblem.Layout.NHWC, q.transposed());
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            int inSpatial = (int) (p.inputElements() / p.batch() / p.inChannels());
            int outSpatial = (int) (p.outputElements() / p.batch() / p.outChannels());
            float[] xl = channelsLast(x, p.batch(), p.inChannels(), inSpatial);
            float[] dyl = channelsLast(dy, p.batch(), p.outChannels(), outSpatial);
            for (CpuConvBackend backend : new CpuConvBackend[] {CPU, GEMM, DIRECT}) {
                // half the cases into output arrays the caller owns, full of NaN
                boolean into = i % 2 == 0;
                float[] y = into ? backend.forward(p, xl, w, nans(p.outputElements())).output()
                        : backend.forward(p, xl, w).output();
                float[] dx = into ? backend.backwardData(p, dyl, w, nans(p.inputElements())).output()
                        : backend.backwardData(p, dyl, w).output();
                float[] dw = into ? backend.backwardFilter(p, xl, dyl, nans(p.filterElements())).output()
                        : backend.backwardFilter(p, xl, dyl).output();
                double[][] ref = !p.transposed()
                        ? naive(p.batch(), p.inChannels(), p.inDims(), p.outChannels(), p.outDims(), p.kernel(), p.stride(),
                                p.padBegin(), p.dilation(), p.groups(), x, w, dy)
                        : naive(p.batch(), p.outChannels(), p.outDims(), p.inChannels(), p.inDims(), p.kernel(), p.stride(),
                                p.padBegin(), p.dilation(), p.groups(), dy, w, x);
                int fy = p.transposed() ? 1 : 0;
                int fdx = p.transposed() ? 0 : 1;
                assertClose("NHWC forward", y, lastD(ref[fy], p.batch(), p.outChannels(), outSpatial),
                        lastD(ref[3 + fy], p.batch(), p.outChannels(), outSpatial), ref[6 + fy][0], seed, p);
                assertClose("NHWC backward-data", dx, lastD(ref[fdx], p.batch(), p.inChannels(), inSpatial),
                        lastD(ref[3 + fdx], p.batch(), p.inChannels(), inSpatial), ref[6 + fdx][0], seed, p);
                assertClose("NHWC backward-filter", dw, ref[2], ref[5], ref[8][0], seed, p);
            }
        }
    }

    static double[] lastD(double[] a, int n, int c, int spatial) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            int b = i / (c * spatial);
            int ch = i / spatial % c;
            int s = i % spatial;
            r[(b * spatial + s) * c + ch] = a[i];
        }
        return r;
    }

    /**
     * peak_bytes counts what a pass really allocated (operands, copies, output, the kernels' scratch arrays), and on
     * the 300 random shapes, in every dtype and both layouts, it stays within the estimator's per-layer bound.
     */
    @Test
    void peakBytesStaysWithinTheEstimatorsBound() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        for (int i = 0; i < 300; i++) {
            ConvProblem q = randomProblem(r, i);
            ConvProblem.DType dtype = ConvProblem.DType.values()[i % 3];
            ConvProblem.Layout layout = ConvProblem.Layout.values()[i / 3 % 2];
            ConvProblem p = new ConvProblem(q.name(), q.rank(), q.batch(), q.inChannels(), q.inDims(), q.outChannels(),
                    q.kernel(), q.stride(), q.padBegin(), q.padEnd(), q.dilation(), q.groups(), dtype, layout,
                    q.transposed());
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            long bound = CpuConvBackend.passBound(p, 2);
            long tensors = 4 * (p.inputElements() + p.filterElements() + p.outputElements());
            for (ConvBackend.PassResult pass : new ConvBackend.PassResult[] {CPU.forward(p, x, w),
                CPU.backwardData(p, dy, w), CPU.backwardFilter(p, x, dy)}) {
                // every pass holds all three tensors: its two operands and its output
                assertThat(pass.peakBytes()).as(p + " (seed " + seed + ")").isLessThanOrEqualTo(bound)
                        .isGreaterThanOrEqualTo(tensors);
            }
        }
    }

    /**
     * Pointwise (1x1, unit stride, no padding) layers whose planes are whole tiles are read from x itself and added
     * straight into y; the random shapes are too small to reach that path, so these shapes are chosen for it.
     */
    @Test
    void pointwiseLayersReadTheInputInPlace() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int[][] shapes = {{2, 24, 8, 8, 16, 1}, {3, 16, 4, 16, 40, 2}, {1, 8, 8, 12, 8, 1}, {2, 12, 32, 1, 24, 3}};
        for (int[] s : shapes) {
            ConvProblem p = new ConvProblem("pointwise", 2, s[0], s[1], new int[] {s[2], s[3]}, s[4], new int[] {1, 1},
                    new int[] {1, 1}, new int[] {0, 0}, new int[] {0, 0}, new int[] {1, 1}, s[5],
                    ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(SHIFT, p, x, w, dy, seed);
            assertPasses(CPU, p, x, w, dy, seed);
        }
    }

    /**
     * Layers whose reduction is longer than one packed chunk ({@link ShiftConv#chunkRows}) reduce chunk by chunk, in
     * c or added into y (1x1 layers), and layers with whole panels of 32 output channels per group pack dy^T by
     * gathering; the random shapes have too few channels for either, so these shapes are chosen for them (with
     * groups, strides, dilation, padding).
     * Each row: batch, channels, height, width, filters, kernel, stride, pad, dilation, groups.
     */
    @Test
    void wideLayersReduceTapByTapAndInChunks() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int[][] shapes = {
            {2, 40, 9, 11, 24, 3, 1, 1, 1, 1}, {1, 36, 7, 7, 40, 3, 2, 2, 2, 2}, {1, 17, 6, 5, 16, 2, 1, 1, 1, 1},
            {2, 272, 8, 8, 16, 1, 1, 0, 1, 1}, {1, 600, 4, 16, 24, 1, 1, 0, 1, 2}, {1, 72, 5, 7, 9, 1, 1, 0, 1, 1},
            // 32 and more output channels per group: the filter gradient gathers dy^T a whole panel at a time
            {2, 16, 8, 8, 64, 1, 1, 0, 1, 1}, {1, 3, 13, 11, 40, 7, 2, 3, 1, 1}, {1, 12, 9, 9, 96, 3, 2, 1, 1, 3},
            // and rows of 40 outputs
            {1, 4, 5, 40, 32, 3, 1, 1, 1, 1},
        };
        assertThat(ShiftConv.chunkRows(360) < 360 && ShiftConv.chunkRows(272) < 272 && ShiftConv.chunkRows(300) < 300
                && ShiftConv.chunkRows(162) == 162)
                .as("the shapes reach both paths").isTrue();
        for (int[] s : shapes) {
            ConvProblem p = new ConvProblem("wide", 2, s[0], s[1], new int[] {s[2], s[3]}, s[4], new int[] {s[5], s[5]},
                    new int[] {s[6], s[6]}, new int[] {s[7], s[7]}, new int[] {s[7], s[7]}, new int[] {s[8], s[8]}, s[9],
                    ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(SHIFT, p, x, w, dy, seed);
            assertPasses(CPU, p, x, w, dy, seed);
        }
    }

    /**
     * Forward (and unit-stride backward-data, which runs through it) copies and computes bands of output rows
     * ({@link ShiftConv#bandRows}); with many channels a band is a few rows, so these layers have several bands per
     * depth slice, a last band cut short, bands of strided, dilated, grouped and 3D layers, and blocks of 32 grid
     * positions cut by a band's end; the unit-stride layers pack a window per channel ({@link ShiftConv#windowFloats}),
     * the strided ones row by row. Each row: rank, batch, channels, depth, height, width, filters, kernel, stride,
     * pad, dilation, groups.
     */
    @Test
    void forwardComputesBandsOfRows() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int[][] shapes = {
            {2, 2, 400, 1, 13, 40, 24, 3, 1, 1, 1, 1}, {2, 1, 300, 1, 11, 30, 16, 3, 2, 2, 2, 2},
            {3, 1, 40, 5, 9, 30, 8, 3, 1, 1, 1, 1}, {3, 1, 256, 6, 7, 20, 16, 3, 2, 1, 1, 2},
            {2, 1, 200, 1, 17, 64, 8, 5, 1, 2, 1, 1},
        };
        java.util.Set<Boolean> windows = new java.util.HashSet<>();
        for (int[] s : shapes) {
            int rank = s[0];
            int[] dims = rank == 3 ? new int[] {s[3], s[4], s[5]} : new int[] {s[4], s[5]};
            int[] k = new int[rank];
            int[] st = new int[rank];
            int[] pad = new int[rank];
            int[] dil = new int[rank];
            java.util.Arrays.fill(k, s[7]);
            java.util.Arrays.fill(st, s[8]);
            java.util.Arrays.fill(pad, s[9]);
            java.util.Arrays.fill(dil, s[10]);
            ConvProblem p = new ConvProblem("bands", rank, s[1], s[2], dims, s[6], k, st, pad, pad, dil, s[11],
                    ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
            ConvGeometry g = ConvGeometry.of(p);
            int h = ShiftConv.bandRows(g, 2);
            assertThat(h).as("%s has more than one band of rows", java.util.Arrays.toString(s)).isLessThan(g.out()[1]);
            windows.add(ShiftConv.windowFloats(g, ShiftConv.band(g, h)) > 0);
            float[] x = random(r, p.inputElements());
            float[] w = random(r, p.filterElements());
            float[] dy = random(r, p.outputElements());
            assertPasses(SHIFT, p, x, w, dy, seed);
        }
        assertThat(windows).as("the shapes pack both windows and rows").containsExactlyInAnyOrder(true, false);
    }

    @Test
    void wrongArraySizesAreRefused() {
        ConvProblem p = p2(1, 3, 3, 1, 2, 2, 1, 0, 0, 1, 1, false);
        assertThatThrownBy(() -> CPU.forward(p, new float[8], new float[4])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("x must have 9 elements, has 8");
        // an output array of the wrong size is refused before anything runs, and is left as it was
        float[] y = {7, 7, 7};
        assertThatThrownBy(() -> CPU.forward(p, new float[9], new float[4], y)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the output array y must have 4 elements, has 3");
        assertThat(y).containsExactly(7, 7, 7);
        assertThatThrownBy(() -> CPU.backwardData(p, new float[4], new float[4], new float[8]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the output array dx must have 9 elements, has 8");
        assertThatThrownBy(() -> CPU.backwardFilter(p, new float[9], new float[4], null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the output array dw must have 4 elements, has none");
    }

    /**
     * A caller that reuses its output arrays (the replay, the bench) gets the naive loop's results: each pass into the
     * same three arrays twice (NaN at first), with other inputs the second time, on the layers whose loops overwrite the output
     * (1x1, unit-stride 3x3) and those that add into a cleared one (strided, direct loops, packed products).
     */
    @Test
    void reusedOutputArraysGiveTheNaiveLoopsResults() throws Exception {
        long seed = Long.getLong("crashlab.test.seed", System.nanoTime());
        Random r = new Random(seed);
        // batch, channels, height, width, filters, kernel, stride, pad, groups
        int[][] shapes = {{2, 24, 8, 8, 16, 1, 1, 0, 1}, {1, 16, 9, 11, 24, 3, 1, 1, 1}, {2, 12, 9, 9, 16, 3, 2, 1, 1},
            {1, 8, 6, 6, 8, 1, 2, 0, 2}, {2, 6, 7, 5, 3, 3, 1, 1, 3}};
        for (int[] s : shapes) {
            ConvProblem p = new ConvProblem("reused", 2, s[0], s[1], new int[] {s[2], s[3]}, s[4], new int[] {s[5], s[5]},
                    new int[] {s[6], s[6]}, new int[] {s[7], s[7]}, new int[] {s[7], s[7]}, new int[] {1, 1}, s[8],
                    ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
            for (CpuConvBackend backend : new CpuConvBackend[] {CPU, GEMM, SHIFT, DIRECT}) {
                float[] y = nans(p.outputElements());
                float[] dx = nans(p.inputElements());
                float[] dw = nans(p.filterElements());
                for (int round = 0; round < 2; round++) {
                    float[] x = random(r, p.inputElements());
                    float[] w = random(r, p.filterElements());
                    float[] dy = random(r, p.outputElements());
                    backend.forward(p, x, w, y);
                    backend.backwardData(p, dy, w, dx);
                    backend.backwardFilter(p, x, dy, dw);
                    double[][] ref = naive(p.batch(), p.inChannels(), p.inDims(), p.outChannels(), p.outDims(), p.kernel(),
                            p.stride(), p.padBegin(), p.dilation(), p.groups(), x, w, dy);
                    String what = " [" + backend.kernelsDescription() + ", round " + round + "]";
                    assertClose("forward" + what, y, ref[0], ref[3], ref[6][0], seed, p);
                    assertClose("backward-data" + what, dx, ref[1], ref[4], ref[7][0], seed, p);
                    assertClose("backward-filter" + what, dw, ref[2], ref[5], ref[8][0], seed, p);
                }
            }
        }
    }
}
