package dev.crashlab.conv;

import static dev.crashlab.conv.PackedGemm.MR;
import static dev.crashlab.conv.PackedGemm.NR;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;

/**
 * The CPU backend's fast convolutions: each pass as packed matrix products over im2col panels, computed by the
 * {@link PackedGemm} micro-kernel, in cache-sized blocks, on every core.
 *
 * <p>NOTE: no im2col matrix is ever materialised: the input is gathered straight into packed panels of at most
 * {@link #KC} reduction rows x {@link #NCB} positions, so the scratch memory of a pass is bounded by
 * {@link #scratchBytes} (a few MiB per thread, plus the packed filter) whatever the layer's size.
 * <ul>
 *   <li>forward: y[k, p] = sum over (c, tap) of w[k, (c, tap)] * col[(c, tap), p], one task per image, group and
 *       block of output positions, written straight into y;</li>
 *   <li>backward-data: dcol = w^T dy for a block of positions, then scattered onto dx (col2im); one task per
 *       image, group and block of input channels, so no two tasks write the same element;</li>
 *   <li>backward-filter: dw^T[(c, tap), k] = sum over images and positions of col[(c, tap), q] * dy[k, q], one
 *       task per group, block of (c, tap) rows and slice of the reduction; slices add up at the end.</li>
 * </ul>
 */
final class GemmConv {

    /** Reduction rows per packed block: an A micro-panel (MR x KC) and a B micro-panel (KC x NR) stay in L1/L2. */
    static final int KC = 256;
    /** Output positions per block: eight B micro-panels. */
    static final int NCB = 8 * NR;
    /** Rows of dcol (backward-data) or dw^T (backward-filter) per task, before rounding to whole channels. */
    static final int MC = 128;

    /** Runs {@code count} tasks on the backend's pool and waits for them; hands out (and counts) scratch arrays. */
    interface Tasks {
        void run(int count, IntConsumer task);

        int threads();

        /** A new zeroed scratch array of {@code n} floats, counted in the pass's {@code peak_bytes}. */
        float[] alloc(int n);

        /** A new zeroed scratch array of {@code n} ints, counted in the pass's {@code peak_bytes}. */
        int[] allocInts(int n);

        /**
         * A scratch array of {@code n} floats whose contents are unspecified (an earlier pass's, kept): for arrays the
         * pass writes wholly before it reads them, where zeroing would be a wasted sweep. Counted as {@link #alloc}.
         */
        default float[] allocUnset(int n) {
            return alloc(n);
        }
    }

    private GemmConv() {}

    /** Scratch floats a pass needs beyond its inputs and output: packed filters, per-thread panels, partial sums. */
    static long scratchBytes(ConvGeometry g, Pass pass, int threads) {
        long perThread;
        long shared;
        int kr = g.cInPerGroup() * g.kernelVolume();
        int kpg = g.cOutPerGroup();
        switch (pass) {
            case FORWARD -> {
                perThread = (KC * NCB + MR * NR);
                shared = (long) g.groups() * roundUp(kpg, MR) * kr;
            }
            case BACKWARD_DATA -> {
                int rows = roundUp(channelsPerChunk(g) * g.kernelVolume(), MR);
                perThread = (KC * NCB) + (long) rows * NCB;
                shared = (long) g.groups() * chunks(g) * rows * kpg;
            }
            default -> {
                int npad = roundUp(kpg, NR);
                perThread = (long) KC * roundUp(MC, MR) + (KC * npad) + (long) roundUp(MC, MR) * npad;
                shared = (long) (filterSplits(g, threads) - 1) * g.cOut() * kr;
            }
        }
        return 4 * ((threads + 1) * perThread + shared);
    }

    /** The three passes, for {@link #scratchBytes}. */
    enum Pass { FORWARD, BACKWARD_DATA, BACKWARD_FILTER }

    /** The kernel's shape, for reports. */
    static String describe() {
        return "packed products, " + MR + " x " + NR + " micro-tiles of " + PackedGemm.L + "-lane vectors";
    }

    static int roundUp(int v, int m) {
        return (v + m - 1) / m * m;
    }

    /** Reusable per-task scratch arrays: at most one per running task, so bounded by the pool's threads. */
    private static final class Scratch {
        private final ConcurrentLinkedQueue<float[]> free = new ConcurrentLinkedQueue<>();
        private final int size;
        private final Tasks tasks;

        Scratch(int size, Tasks tasks) {
            this.size = size;
            this.tasks = tasks;
        }

        float[] take() {
            float[] a = free.poll();
            return a != null ? a : tasks.alloc(size);
        }

        void give(float[] a) {
            free.add(a);
        }
    }

    // ---------------------------------------------------------------- forward

    /**
     * The forward product's A: w as (kpg x kr) per group, packed into MR-row panels, {@code a[g][ir][k][i]}, rows
     * past kpg zero (kr = cInPerGroup x kernel volume, kpg rounded up to MR).
     */
    static float[] packFilter(ConvGeometry g, float[] w, Tasks tasks) {
        int kpg = g.cOutPerGroup();
        int kr = g.cInPerGroup() * g.kernelVolume();
        int mpad = roundUp(kpg, MR);
        float[] a = tasks.alloc(g.groups() * mpad * kr);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int m = 0; m < kpg; m++) {
                int base = gr * mpad * kr + m / MR * MR * kr + m % MR;
                int wRow = (gr * kpg + m) * kr;
                for (int k = 0; k < kr; k++) {
                    a[base + k * MR] = w[wRow + k];
                }
            }
        }
        return a;
    }

    /** y = conv(x, w) for the plain convolution {@code g}; y must be zero. */
    static void forward(ConvGeometry g, float[] x, float[] w, float[] y, Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int mpad = roundUp(kpg, MR);
        int positions = g.outSpatial();
        float[] a = packFilter(g, w, tasks);
        int blocks = ceilDiv(positions, NCB);
        Scratch panels = new Scratch((KC * NCB + MR * NR), tasks);
        tasks.run(g.n() * g.groups() * blocks, task -> {
            int block = task % blocks;
            int gr = task / blocks % g.groups();
            int n = task / blocks / g.groups();
            int p0 = block * NCB;
            int pl = Math.min(NCB, positions - p0);
            int panelsHere = ceilDiv(pl, NR);
            float[] b = panels.take();
            int edge = KC * NCB;
            for (int k0 = 0; k0 < kr; k0 += KC) {
                int kcl = Math.min(KC, kr - k0);
                for (int k = 0; k < kcl; k++) {
                    int r = k0 + k;
                    int c = gr * cpg + r / kv;
                    int tap = r % kv;
                    int xPlane = (n * g.cIn() + c) * g.inSpatial();
                    gatherPanels(g, x, xPlane, tap, p0, pl, b, k * NR, kcl * NR);
                    if (pl % NR != 0) {
                        int off = (panelsHere - 1) * kcl * NR + k * NR;
                        Arrays.fill(b, off + pl % NR, off + NR, 0f);
                    }
                }
                for (int jr = 0; jr < panelsHere; jr++) {
                    int ps = p0 + jr * NR;
                    int cols = Math.min(NR, positions - ps);
                    for (int ir = 0; ir < mpad / MR; ir++) {
                        int rows = Math.min(MR, kpg - ir * MR);
                        int aOff = gr * mpad * kr + ir * MR * kr + k0 * MR;
                        int yOff = (n * g.cOut() + gr * kpg + ir * MR) * positions + ps;
                        if (rows == MR && cols == NR) {
                            PackedGemm.tile(a, aOff, b, jr * kcl * NR, kcl, y, yOff, positions);
                        } else {
                            PackedGemm.edgeTile(a, aOff, b, jr * kcl * NR, kcl, y, yOff, positions, rows, cols,
                                    b, edge);
                        }
                    }
                }
            }
            panels.give(b);
        });
    }

    // ---------------------------------------------------------------- backward-data

    // Input channels per backward-data task: enough (channel, tap) rows to make a product worth packing for.
    private static int channelsPerChunk(ConvGeometry g) {
        return Math.min(g.cInPerGroup(), Math.max(1, ceilDiv(MC, g.kernelVolume())));
    }

    private static int chunks(ConvGeometry g) {
        return ceilDiv(g.cInPerGroup(), channelsPerChunk(g));
    }

    /** dx = the input gradient of the plain convolution {@code g}; dx must be zero. */
    static void backwardData(ConvGeometry g, float[] dy, float[] w, float[] dx, Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int positions = g.outSpatial();
        int cch = channelsPerChunk(g);
        int chunks = chunks(g);
        int rowsPad = roundUp(cch * kv, MR);
        // A = w^T per (group, chunk): rows (c, tap) of the chunk, reduction over the group's output channels
        float[] a = tasks.alloc(g.groups() * chunks * rowsPad * kpg);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int ch = 0; ch < chunks; ch++) {
                int base = (gr * chunks + ch) * rowsPad * kpg;
                int c0 = ch * cch;
                int rows = (Math.min(cpg, c0 + cch) - c0) * kv;
                for (int m = 0; m < rows; m++) {
                    int at = base + m / MR * MR * kpg + m % MR;
                    for (int k = 0; k < kpg; k++) {
                        a[at + k * MR] = w[((gr * kpg + k) * cpg + c0) * kv + m];
                    }
                }
            }
        }
        Scratch panels = new Scratch((KC * NCB), tasks);
        Scratch cols = new Scratch(rowsPad * NCB, tasks);
        tasks.run(g.n() * g.groups() * chunks, task -> {
            int ch = task % chunks;
            int gr = task / chunks % g.groups();
            int n = task / chunks / g.groups();
            int c0 = ch * cch;
            int rows = (Math.min(cpg, c0 + cch) - c0) * kv;
            int aBase = (gr * chunks + ch) * rowsPad * kpg;
            float[] b = panels.take();
            float[] dcol = cols.take();
            for (int p0 = 0; p0 < positions; p0 += NCB) {
                int pl = Math.min(NCB, positions - p0);
                int panelsHere = ceilDiv(pl, NR);
                Arrays.fill(dcol, 0f);
                for (int k0 = 0; k0 < kpg; k0 += KC) {
                    int kcl = Math.min(KC, kpg - k0);
                    for (int k = 0; k < kcl; k++) {
                        int dyRow = (n * g.cOut() + gr * kpg + k0 + k) * positions;
                        for (int jr = 0; jr < panelsHere; jr++) {
                            int ps = p0 + jr * NR;
                            int len = Math.min(NR, positions - ps);
                            int off = jr * kcl * NR + k * NR;
                            System.arraycopy(dy, dyRow + ps, b, off, len);
                            if (len < NR) {
                                Arrays.fill(b, off + len, off + NR, 0f);
                            }
                        }
                    }
                    for (int jr = 0; jr < panelsHere; jr++) {
                        for (int ir = 0; ir < rowsPad / MR; ir++) {
                            PackedGemm.tile(a, aBase + ir * MR * kpg + k0 * MR, b, jr * kcl * NR, kcl, dcol,
                                    ir * MR * NCB + jr * NR, NCB);
                        }
                    }
                }
                for (int m = 0; m < rows; m++) {
                    int c = gr * cpg + c0 + m / kv;
                    scatter(g, dx, (n * g.cIn() + c) * g.inSpatial(), m % kv, p0, pl, dcol, m * NCB);
                }
            }
            panels.give(b);
            cols.give(dcol);
        });
    }

    // ---------------------------------------------------------------- backward-filter

    // Slices of the reduction (images x positions) computed apart and added at the end, when the
    // (group, row block) tasks alone would leave cores idle.
    static int filterSplits(ConvGeometry g, int threads) {
        int rowBlocks = g.groups() * ceilDiv(g.cInPerGroup() * g.kernelVolume(), MC);
        long reduction = (long) g.n() * g.outSpatial();
        int splits = (int) Math.min(ceilDiv(2 * threads, rowBlocks), Math.max(1, reduction / (4L * KC)));
        long filter = (long) g.cOut() * g.cInPerGroup() * g.kernelVolume();
        while (splits > 1 && (splits - 1) * filter > (16L << 20)) {
            splits--; // at most 64 MiB of partial sums
        }
        return Math.max(1, splits);
    }

    /** dw = the filter gradient of the plain convolution {@code g}; dw must be zero. */
    static void backwardFilter(ConvGeometry g, float[] x, float[] dy, float[] dw, Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int npad = roundUp(kpg, NR);
        int positions = g.outSpatial();
        int rowBlocks = ceilDiv(kr, MC);
        int splits = filterSplits(g, tasks.threads());
        long reduction = (long) g.n() * positions;
        float[][] parts = new float[splits][];
        parts[0] = dw;
        for (int s = 1; s < splits; s++) {
            parts[s] = tasks.alloc(dw.length);
        }
        Scratch aPanels = new Scratch(KC * roundUp(MC, MR), tasks);
        Scratch bPanels = new Scratch((KC * npad), tasks);
        Scratch acc = new Scratch(roundUp(MC, MR) * npad, tasks);
        tasks.run(g.groups() * rowBlocks * splits, task -> {
            int split = task % splits;
            int rb = task / splits % rowBlocks;
            int gr = task / splits / rowBlocks;
            int r0 = rb * MC;
            int rows = Math.min(MC, kr - r0);
            int mPanels = ceilDiv(rows, MR);
            long q0 = reduction * split / splits;
            long q1 = reduction * (split + 1) / splits;
            float[] a = aPanels.take();
            float[] b = bPanels.take();
            float[] c = acc.take();
            Arrays.fill(c, 0f);
            for (long qs = q0; qs < q1; ) {
                int n = (int) (qs / positions);
                int p = (int) (qs % positions);
                int kcl = (int) Math.min(KC, Math.min(q1 - qs, positions - p));
                // A: col rows r0..r0+rows at positions p..p+kcl, packed a[ir][q][i]
                for (int m = 0; m < mPanels * MR; m++) {
                    int off = m / MR * MR * kcl + m % MR;
                    if (m < rows) {
                        int r = r0 + m;
                        int xPlane = (n * g.cIn() + gr * cpg + r / kv) * g.inSpatial();
                        gather(g, x, xPlane, r % kv, p, kcl, a, off, MR);
                    } else {
                        for (int q = 0; q < kcl; q++) {
                            a[off + q * MR] = 0f;
                        }
                    }
                }
                // B: dy^T, b[jr][q][j] = dy[k = jr*NR + j][q]
                for (int k = 0; k < npad; k++) {
                    int off = k / NR * kcl * NR + k % NR;
                    if (k < kpg) {
                        int dyRow = (n * g.cOut() + gr * kpg + k) * positions + p;
                        for (int q = 0; q < kcl; q++) {
                            b[off + q * NR] = dy[dyRow + q];
                        }
                    } else {
                        for (int q = 0; q < kcl; q++) {
                            b[off + q * NR] = 0f;
                        }
                    }
                }
                for (int jr = 0; jr < npad / NR; jr++) {
                    for (int ir = 0; ir < mPanels; ir++) {
                        PackedGemm.tile(a, ir * MR * kcl, b, jr * kcl * NR, kcl, c, ir * MR * npad + jr * NR, npad);
                    }
                }
                qs += kcl;
            }
            float[] out = parts[split];
            for (int m = 0; m < rows; m++) {
                for (int k = 0; k < kpg; k++) {
                    out[(gr * kpg + k) * kr + r0 + m] = c[m * npad + k];
                }
            }
            aPanels.give(a);
            bPanels.give(b);
            acc.give(c);
        });
        for (int s = 1; s < splits; s++) {
            float[] part = parts[s];
            for (int i = 0; i < dw.length; i++) {
                dw[i] += part[i];
            }
        }
    }

    // ---------------------------------------------------------------- im2col and col2im

    /**
     * Copies {@code len} elements of one im2col row, the input plane at {@code xPlane} seen through kernel tap
     * {@code tap}, for output positions {@code p, p+1, ...}, to {@code dst[dOff], dst[dOff + dStride], ...}; taps
     * that fall into the padding give 0.
     */
    static void gather(ConvGeometry g, float[] x, int xPlane, int tap, int p, int len, float[] dst, int dOff,
            int dStride) {
        int[] k = g.k();
        int[] in = g.in();
        int[] out = g.out();
        int kw = tap % k[2];
        int kh = tap / k[2] % k[1];
        int kd = tap / k[2] / k[1];
        int sw = g.s()[2];
        int offW = kw * g.dil()[2] - g.pad()[2];
        int lo = firstInside(offW, sw);
        int hi = lastInside(offW, sw, in[2], out[2]);
        int ow = p % out[2];
        int oh = p / out[2] % out[1];
        int od = p / out[2] / out[1];
        while (len > 0) {
            int seg = Math.min(len, out[2] - ow);
            int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
            int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
            if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1]) {
                fill(dst, dOff, dStride, seg);
            } else {
                int row = xPlane + (id * in[1] + ih) * in[2] + offW;
                int end = ow + seg;
                int a = Math.min(end, Math.max(ow, lo));
                int b = Math.max(a, Math.min(end, hi));
                fill(dst, dOff, dStride, a - ow);
                int d = dOff + (a - ow) * dStride;
                if (dStride == 1 && sw == 1) {
                    if (b > a) { // else row + a may lie past the plane, which arraycopy refuses even for 0 elements
                        System.arraycopy(x, row + a, dst, d, b - a);
                    }
                } else {
                    for (int o = a; o < b; o++, d += dStride) {
                        dst[d] = x[row + o * sw];
                    }
                }
                fill(dst, dOff + (b - ow) * dStride, dStride, end - b);
            }
            dOff += seg * dStride;
            len -= seg;
            ow = 0;
            if (++oh == out[1]) {
                oh = 0;
                od++;
            }
        }
    }

    /**
     * {@link #gather} for a block of {@code len} positions from {@code p} into B-panels: position {@code p + i}
     * goes to {@code dst[dBase + (i / NR) * panelStride + i % NR]}. One call per row and block, not per panel:
     * the per-call index arithmetic cost as much as the copying when it ran per 32 positions.
     */
    static void gatherPanels(ConvGeometry g, float[] x, int xPlane, int tap, int p, int len, float[] dst, int dBase,
            int panelStride) {
        int[] k = g.k();
        int[] in = g.in();
        int[] out = g.out();
        int kw = tap % k[2];
        int kh = tap / k[2] % k[1];
        int kd = tap / k[2] / k[1];
        int sw = g.s()[2];
        int offW = kw * g.dil()[2] - g.pad()[2];
        int lo = firstInside(offW, sw);
        int hi = lastInside(offW, sw, in[2], out[2]);
        int ow = p % out[2];
        int oh = p / out[2] % out[1];
        int od = p / out[2] / out[1];
        int i = 0;
        while (i < len) {
            int seg = Math.min(len - i, out[2] - ow);
            int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
            int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
            boolean rowInside = id >= 0 && id < in[0] && ih >= 0 && ih < in[1];
            int row = rowInside ? xPlane + (id * in[1] + ih) * in[2] + offW : 0;
            int o = ow;
            int end = ow + seg;
            while (o < end) {
                int inPanel = i % NR;
                int piece = Math.min(end - o, NR - inPanel);
                int d = dBase + i / NR * panelStride + inPanel;
                if (!rowInside) {
                    Arrays.fill(dst, d, d + piece, 0f);
                } else {
                    int a = Math.min(o + piece, Math.max(o, lo));
                    int b = Math.max(a, Math.min(o + piece, hi));
                    Arrays.fill(dst, d, d + (a - o), 0f);
                    if (b > a) {
                        if (sw == 1) {
                            System.arraycopy(x, row + a, dst, d + (a - o), b - a);
                        } else {
                            for (int q = a, dd = d + (a - o); q < b; q++, dd++) {
                                dst[dd] = x[row + q * sw];
                            }
                        }
                    }
                    Arrays.fill(dst, d + (b - o), d + piece, 0f);
                }
                o += piece;
                i += piece;
            }
            ow = 0;
            if (++oh == out[1]) {
                oh = 0;
                od++;
            }
        }
    }

    /** The adjoint of {@link #gather} with stride 1: adds {@code src[sOff..]} onto the input plane at {@code xPlane}. */
    static void scatter(ConvGeometry g, float[] dx, int xPlane, int tap, int p, int len, float[] src, int sOff) {
        int[] k = g.k();
        int[] in = g.in();
        int[] out = g.out();
        int kw = tap % k[2];
        int kh = tap / k[2] % k[1];
        int kd = tap / k[2] / k[1];
        int sw = g.s()[2];
        int offW = kw * g.dil()[2] - g.pad()[2];
        int lo = firstInside(offW, sw);
        int hi = lastInside(offW, sw, in[2], out[2]);
        int ow = p % out[2];
        int oh = p / out[2] % out[1];
        int od = p / out[2] / out[1];
        while (len > 0) {
            int seg = Math.min(len, out[2] - ow);
            int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
            int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
            if (id >= 0 && id < in[0] && ih >= 0 && ih < in[1]) {
                int row = xPlane + (id * in[1] + ih) * in[2] + offW;
                int end = ow + seg;
                int a = Math.min(end, Math.max(ow, lo));
                int b = Math.max(a, Math.min(end, hi));
                int s = sOff + (a - ow);
                if (sw == 1) {
                    int base = row + a - s;
                    for (int i = s; i < s + (b - a); i++) {
                        dx[base + i] += src[i];
                    }
                } else {
                    for (int o = a; o < b; o++, s++) {
                        dx[row + o * sw] += src[s];
                    }
                }
            }
            sOff += seg;
            len -= seg;
            ow = 0;
            if (++oh == out[1]) {
                oh = 0;
                od++;
            }
        }
    }

    private static void fill(float[] dst, int off, int stride, int count) {
        if (stride == 1) {
            Arrays.fill(dst, off, off + count, 0f);
        } else {
            for (int i = 0; i < count; i++) {
                dst[off + i * stride] = 0f;
            }
        }
    }

    // The first output position whose input position ow * s + off is >= 0.
    private static int firstInside(int off, int s) {
        return off >= 0 ? 0 : Math.ceilDiv(-off, s);
    }

    // One past the last output position whose input position ow * s + off is < width.
    private static int lastInside(int off, int s, int width, int outWidth) {
        int last = Math.floorDiv(width - 1 - off, s);
        return Math.max(0, Math.min(outWidth, last + 1));
    }

    private static int ceilDiv(long a, long b) {
        return (int) ((a + b - 1) / b);
    }
}
