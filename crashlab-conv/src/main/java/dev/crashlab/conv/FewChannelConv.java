package dev.crashlab.conv;

import static dev.crashlab.conv.PackedGemm.L;
import static dev.crashlab.conv.PackedGemm.MR;
import static dev.crashlab.conv.PackedGemm.NR;
import static dev.crashlab.conv.PackedGemm.S;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Convolutions with few input channels per group (an RGB stem: 3 channels, a 7x7 kernel, stride 2), where the
 * reduction (channel, tap) is short and the output channels many, so that the im2col products of the wide layers
 * spend their time re-laying data instead of multiplying.
 *
 * <p>NOTE: every pass is a product with the {@link PackedGemm} micro-kernels (8 x 32 tiles, broadcast A values, B
 * panels read as vectors: 0.9 of the FMA peak on data in L1; dot-product and direct kernels reading both operands as
 * vectors, tried first for the backward passes, ran at half of it), and the data work around the products is vector
 * moves and gathers, no transpose loops:
 * <ul>
 *   <li>forward: y = w x col. The input of a round of images is copied into a zero-padded, stride-phase-split form
 *       ({@link Planes}) in which row (channel, tap) of the im2col matrix over a run of output positions along w is a
 *       contiguous slice; the B panel (reduction x 32 positions, numbered as in y, so a panel spans output rows where
 *       it must) is built from those slices by vector moves and each 8 x 32 tile is stored straight into y;</li>
 *   <li>backward-filter: dw = dy x col^T over blocks of 128 positions. A: each panel's 8 rows of dy, interleaved by
 *       gathers (two positions of 8 rows per 16-lane gather); B: col^T from a zero-padded copy of the input, where a
 *       position's taps along w are consecutive floats, copied a (channel, kd, kh) run at a time. Where a group's output
 *       channels are whole tiles of 4 vectors, {@link #backwardFilterOcVectors} instead: vectors along output channels,
 *       x broadcast from the padded copy in place, no B panel;</li>
 *   <li>backward-data: dcol = w^T x dy, dy's blocks packed by plain vector moves, each 8 x 32 tile's rows added into
 *       the phase-split planes of dx (the slices forward reads; no col2im index arithmetic) by bands of output rows,
 *       bands two apart at a time so that no two threads add into one element; the planes are copied into dx once per
 *       round of images.</li>
 * </ul>
 * Scratch: the padded copies of a round of images (at most {@link ShiftConv#ROUND_FLOATS}, or one image), the re-laid filter,
 * per-thread panels and sums; bounded by {@link #scratchFloats}, whatever the batch.
 */
final class FewChannelConv {

    /** Input channels per group up to which this path applies. */
    static final int MAX_CHANNELS = 4;
    /** Longest reduction (channels per group x kernel volume) this path takes: the forward B panel stays in L1. */
    static final int MAX_REDUCTION = 256;
    /** Output positions of y per forward task: that many panels of 32. */
    static final int BLOCKS_PER_TASK = 4;

    private FewChannelConv() {}

    /**
     * Whether this path runs {@code g}: at most {@link #MAX_CHANNELS} input channels per group, a reduction of at most
     * {@link #MAX_REDUCTION} and a whole micro-tile's rows of output channels per group.
     */
    static boolean applies(ConvGeometry g) {
        return supports(g) && g.cOutPerGroup() >= MR;
    }

    /** Whether these loops can compute {@code g} (any number of output channels; tests force them on small ones). */
    static boolean supports(ConvGeometry g) {
        return g.cInPerGroup() <= MAX_CHANNELS && (long) g.cInPerGroup() * g.kernelVolume() <= MAX_REDUCTION;
    }

    /** Images per round when one image's copy takes {@code floats}: {@link ShiftConv#imagesPerRound}. */
    static int imagesPerRound(ConvGeometry g, long floats) {
        return ShiftConv.imagesPerRound(g, floats);
    }

    static int roundUp(int v, int m) {
        return (v + m - 1) / m * m;
    }

    /** The padded, stride-phase-split input of one image, all channels. */
    static final class Planes {
        final int q0;
        final int q1;
        final int q2;
        final int phases;
        final int planeQ;
        final int floats;
        private final ConvGeometry g;
        /** The same grid as the general loops' planes: their offsets and copy serve here too. */
        private final ShiftConv.Planes grid;

        Planes(ConvGeometry g) {
            this.g = g;
            this.grid = new ShiftConv.Planes(g, g.cIn());
            q0 = grid.q0;
            q1 = grid.q1;
            q2 = grid.q2;
            phases = grid.phases;
            planeQ = grid.planeQ;
            // vector reads start inside a plane and run at most a vector past the end of a row
            floats = Math.toIntExact((long) g.cIn() * phases * planeQ + 2L * NR);
        }

        /** Where im2col row (channel c, tap) starts, relative to output position (0, 0, 0) ({@link #position}). */
        int rowOffset(int c, int tap) {
            return grid.offset(c, tap);
        }

        /** The offset of output position (od, oh, ow) in every row. */
        int position(int od, int oh, int ow) {
            return (od * q1 + oh) * q2 + ow;
        }

        /** Scratch for the planes of {@code images} images, {@link #floats} apart ({@link #fill} writes them whole). */
        float[] alloc(int images, GemmConv.Tasks tasks) {
            return ShiftConv.slots(tasks, images, floats, g.cIn() * phases * planeQ);
        }

        /** Writes phase {@code phase} of channel c of image n of x into {@code dst}, zeros where it is padding. */
        void fill(float[] x, int n, int c, int phase, float[] dst, int at) {
            grid.fill(x, n, g.cIn(), c, phase, dst, at);
        }
    }

    private static long roundFloats(ConvGeometry g, long floats) {
        return imagesPerRound(g, floats) * floats;
    }

    /** Scratch floats (ints count as floats) that {@code pass} of {@code g} allocates on {@code threads} threads. */
    static long scratchFloats(ConvGeometry g, GemmConv.Pass pass, int threads) {
        int kr = g.cInPerGroup() * g.kernelVolume();
        return switch (pass) {
            case FORWARD -> roundFloats(g, new Planes(g).floats) + (long) g.groups() * roundUp(g.cOutPerGroup(), MR) * kr
                    + (long) g.groups() * kr + (long) (threads + 1) * ((long) BLOCKS_PER_TASK * kr * NR + L + MR * NR + 3L * NR);
            case BACKWARD_FILTER -> ocVectors(g) ? roundFloats(g, new Padded(g).floats) + (long) g.groups() * roundUp(kr, ocTaps(g))
                    + L + (long) (threads + 1) * ((long) g.groups() * roundUp(kr, ocTaps(g)) * g.cOutPerGroup()
                    + (long) OC_BLOCK * OC_TILE + OC_BLOCK + (long) ocTaps(g) * OC_TILE)
                    : roundFloats(g, new Padded(g).floats) + (long) g.groups() * (kr + roundUp(g.cOutPerGroup(), MR)
                    + 2L * g.cInPerGroup() * g.k()[0] * g.k()[1] * (4 + g.k()[2] / L + g.k()[2] / NR))
                    + (long) (threads + 1) * (filterAccFloats(g) + (long) Math.ceilDiv(kr, NR) * filterPanelStride() + NR
                    + (long) roundUp(g.cOutPerGroup(), MR) * FILTER_BLOCK) + (long) g.groups() * Math.ceilDiv(g.cOutPerGroup(), MR) * L;
            case BACKWARD_DATA -> (long) g.groups() * roundUp(kr, MR) * (g.cOutPerGroup() + 1) + roundFloats(g, new Planes(g).floats)
                    + (long) (threads + 1) * DATA_BLOCKS * ((long) g.cOutPerGroup() * NR + MR * NR + 3L * NR);
        };
    }

    // ---------------------------------------------------------------- forward

    /** y = conv(x, w) for the plain convolution {@code g}; every element of y is written. */
    static void forward(ConvGeometry g, float[] x, float[] w, float[] y, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int mpad = roundUp(kpg, MR);
        int panels = mpad / MR;
        // A: w per group in MR-row panels, a[gr][panel][k][i], rows past kpg zero
        float[] a = tasks.alloc(g.groups() * mpad * kr);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int m = 0; m < kpg; m++) {
                int dst = gr * mpad * kr + m / MR * MR * kr + m % MR;
                int src = (gr * kpg + m) * kr;
                for (int k = 0; k < kr; k++) {
                    a[dst + k * MR] = w[src + k];
                }
            }
        }
        Planes pl = new Planes(g);
        int round = imagesPerRound(g, pl.floats);
        float[] xq = pl.alloc(round, tasks);
        int[] offs = tasks.allocInts(g.groups() * kr);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int k = 0; k < kr; k++) {
                offs[gr * kr + k] = pl.rowOffset(gr * cpg + k / kv, k % kv);
            }
        }
        int[] out = g.out();
        int positions = g.outSpatial();
        int blocks = Math.ceilDiv(positions, NR);
        int perGroup = Math.ceilDiv(blocks, BLOCKS_PER_TASK);
        ThreadLocal<float[]> panel = ThreadLocal.withInitial(() -> tasks.alloc(BLOCKS_PER_TASK * kr * NR + L));
        ThreadLocal<float[]> edge = ThreadLocal.withInitial(() -> tasks.alloc(MR * NR));
        // per block: segments (destination column, source position, length), each within one output row
        ThreadLocal<int[]> segments = ThreadLocal.withInitial(() -> tasks.allocInts(3 * NR));
        int perImage = g.groups() * perGroup;
        for (int n0 = 0; n0 < g.n(); n0 += round) {
            int first = n0;
            int images = Math.min(round, g.n() - n0);
            int fills = g.cIn() * pl.phases;
            tasks.run(images * fills, t -> pl.fill(x, first + t / fills, t % fills / pl.phases, t % pl.phases, xq,
                    t / fills * pl.floats));
            tasks.run(images * perImage, t -> {
                int image = first + t / perImage;
                int slot = t / perImage * pl.floats;
                int gr = t % perImage / perGroup;
                int b0 = t % perGroup * BLOCKS_PER_TASK;
                int b1 = Math.min(blocks, b0 + BLOCKS_PER_TASK);
                float[] bp = panel.get();
                int[] seg = segments.get();
                // every block's B panel first, then the A panels outermost: each A panel is read once per task from L2,
                // and y is written in runs of the task's width per row
                for (int b = b0; b < b1; b++) {
                    int p0 = b * NR;
                    int cols = Math.min(NR, positions - p0);
                    int nseg = segments(g, pl, p0, cols, seg);
                    for (int sg = 0; sg < nseg; sg++) {
                        seg[3 * sg + 1] += slot;
                    }
                    pack(xq, offs, gr * kr, kr, seg, nseg, bp, (b - b0) * kr * NR);
                }
                for (int ir = 0; ir < panels; ir++) {
                    int rows = Math.min(MR, kpg - ir * MR);
                    int aOff = (gr * panels + ir) * MR * kr;
                    for (int b = b0; b < b1; b++) {
                        int p0 = b * NR;
                        int cols = Math.min(NR, positions - p0);
                        int yOff = (image * g.cOut() + gr * kpg + ir * MR) * positions + p0;
                        int bOff = (b - b0) * kr * NR;
                        if (rows == MR && cols == NR) {
                            PackedGemm.tileStore(a, aOff, bp, bOff, kr, y, yOff, positions);
                        } else {
                            float[] c = edge.get();
                            PackedGemm.tileStore(a, aOff, bp, bOff, kr, c, 0, NR);
                            for (int i = 0; i < rows; i++) {
                                System.arraycopy(c, i * NR, y, yOff + i * positions, cols);
                            }
                        }
                    }
                }
            });
        }
    }

    /**
     * Packs rows {@code offs[o0 ..  o0 + kr)} of the im2col matrix over one block of positions into {@code bp[k * NR ..]}:
     * each segment by whole vectors (a vector past a segment's end is overwritten by the next segment, and the last
     * ends inside the row's NR floats).
     */
    private static void pack(float[] xq, int[] offs, int o0, int kr, int[] seg, int nseg, float[] bp, int at) {
        if (nseg == 1 && seg[2] == NR) {
            int src = seg[1];
            for (int k = 0; k < kr; k++) {
                int from = offs[o0 + k] + src;
                FloatVector.fromArray(S, xq, from).intoArray(bp, at + k * NR);
                FloatVector.fromArray(S, xq, from + L).intoArray(bp, at + k * NR + L);
            }
            return;
        }
        for (int k = 0; k < kr; k++) {
            int row = offs[o0 + k];
            for (int s = 0; s < nseg; s++) {
                int dst = at + k * NR + seg[3 * s];
                int src = row + seg[3 * s + 1];
                int len = seg[3 * s + 2];
                for (int i = 0; i < len; i += L) {
                    FloatVector.fromArray(S, xq, src + i).intoArray(bp, dst + i);
                }
            }
        }
    }

    /**
     * Cuts output positions [p0, p0 + cols) into runs within one output row: seg[3 i] = column in the block, seg[3 i + 1]
     * = offset of the run's first position in the planes, seg[3 i + 2] = length. Returns the number of runs.
     */
    static int segments(ConvGeometry g, Planes pl, int p0, int cols, int[] seg) {
        return segments(g, pl, p0, cols, seg, 0);
    }

    /** {@link #segments} written from {@code seg[at]} on. */
    static int segments(ConvGeometry g, Planes pl, int p0, int cols, int[] seg, int at) {
        int[] out = g.out();
        int nseg = 0;
        for (int done = 0; done < cols; nseg++) {
            int p = p0 + done;
            int ow = p % out[2];
            int oh = p / out[2] % out[1];
            int od = p / out[2] / out[1];
            int len = Math.min(cols - done, out[2] - ow);
            seg[at + 3 * nseg] = done;
            seg[at + 3 * nseg + 1] = pl.position(od, oh, ow);
            seg[at + 3 * nseg + 2] = len;
            done += len;
        }
        return nseg;
    }

    // ---------------------------------------------------------------- backward-filter

    /** Blocks of 32 positions per backward-data step: they share each A panel's pass through L1. */
    static final int DATA_BLOCKS = 4;

    /** Whether a vector holds whole columns of an A panel (MR rows), so that packing A can gather. */
    static final boolean GATHER = L % MR == 0;
    /** Positions of an A panel per gather. */
    static final int PER_GATHER = Math.max(1, L / MR);

    /** Output positions per backward-filter block (the reduction of one product). */
    static final int FILTER_BLOCK = 128;

    /** The zero-padded copy of one image's input that backward-filter gathers im2col^T rows from. */
    static final class Padded {
        final int e0;
        final int e1;
        final int e2;
        final int plane;
        final int floats;

        Padded(ConvGeometry g) {
            int[] e = new int[3];
            for (int d = 0; d < 3; d++) {
                e[d] = Math.max(g.pad()[d] + g.in()[d], (g.out()[d] - 1) * g.s()[d] + g.dil()[d] * (g.k()[d] - 1) + 1);
            }
            e0 = e[0];
            e1 = e[1];
            e2 = e[2];
            plane = e0 * e1 * e2;
            // runs are copied by whole vectors: at most a vector past the last plane
            floats = Math.toIntExact((long) g.cIn() * plane + 2L * L);
        }

        /** Scratch for the copies of {@code images} images, {@link #floats} apart ({@code fillPadded} writes them whole). */
        float[] alloc(int images, GemmConv.Tasks tasks) {
            return ShiftConv.slots(tasks, images, floats, floats - 2 * L);
        }
    }

    private static int filterPanelStride() {
        return (FILTER_BLOCK + 1) * NR;
    }

    /**
     * Copies images {@code first .. first + images - 1} of x into their zero-padded copies in xp (one {@link Padded#floats}
     * slot each, from {@link Padded#alloc}), row by row of the padded grid: an input row with zeros either side, or a
     * row of zeros. Every element of the copies is written, so xp may hold anything there (a kept scratch array).
     */
    private static void fillPadded(ConvGeometry g, Padded pd, float[] x, int first, int images, float[] xp, GemmConv.Tasks tasks) {
        int[] in = g.in();
        int[] pad = g.pad();
        int inPlane = g.inSpatial();
        int rowsPerImage = g.cIn() * pd.e0 * pd.e1;
        tasks.run(images * rowsPerImage, t -> {
            int zh = t % pd.e1;
            int zd = t / pd.e1 % pd.e0;
            int c = t / pd.e1 / pd.e0 % g.cIn();
            int slot = t / rowsPerImage;
            int row = slot * pd.floats + ((c * pd.e0 + zd) * pd.e1 + zh) * pd.e2;
            int id = zd - pad[0];
            int ih = zh - pad[1];
            if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1]) {
                java.util.Arrays.fill(xp, row, row + pd.e2, 0f);
                return;
            }
            java.util.Arrays.fill(xp, row, row + pad[2], 0f);
            System.arraycopy(x, ((first + slot) * g.cIn() + c) * inPlane + (id * in[1] + ih) * in[2], xp, row + pad[2], in[2]);
            java.util.Arrays.fill(xp, row + pad[2] + in[2], row + pd.e2, 0f);
        });
    }

    private static long filterAccFloats(ConvGeometry g) {
        int kr = g.cInPerGroup() * g.kernelVolume();
        return (long) g.groups() * roundUp(g.cOutPerGroup(), MR) * roundUp(kr, NR);
    }

    /**
     * dw = the filter gradient of the plain convolution {@code g}; dw is overwritten. dw[k][(c, tap)] = sum over positions
     * p of dy[k][p] x col^T[p][(c, tap)]: the {@link PackedGemm#tileCols} product with 8 output channels' rows of dy read in
     * place as A and col^T packed as B, 32 reduction rows per panel, a block of positions at a time. With unit dilation
     * along w a position's taps (c, kd, kh, 0 .. kw) are consecutive floats of the padded input, copied by whole
     * vectors. Each thread adds into sums of its own, added together at the end.
     */
    static void backwardFilter(ConvGeometry g, float[] x, float[] dy, float[] dw, GemmConv.Tasks tasks) {
        if (ocVectors(g)) {
            backwardFilterOcVectors(g, x, dy, dw, tasks);
            return;
        }
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int[] k = g.k();
        int[] s = g.s();
        int[] dil = g.dil();
        int[] in = g.in();
        int[] out = g.out();
        int[] pad = g.pad();
        int rPanels = Math.ceilDiv(kr, NR);
        int kPanels = Math.ceilDiv(kpg, MR);
        Padded pd = new Padded(g);
        int round = imagesPerRound(g, pd.floats);
        float[] xp = pd.alloc(round, tasks);
        boolean runs = dil[2] == 1;
        int kw = k[2];
        // per group: where reduction row (c, kd, kh, kw) starts, relative to a position's corner; with unit dilation
        // along w, the pieces (source, destination in a position's row of the panels) that copy each (c, kd, kh) run
        // by whole vectors, in increasing destination order: a vector past a piece's end lands where a later piece (or
        // the next position's row, or the panel's spare row) is written
        int[] colOff = tasks.allocInts(g.groups() * kr);
        // runs of at most 8 taps are copied by 8-lane vectors: a 64-byte vector at an odd place straddles two cache lines
        // every time, a 32-byte one half of the time (the 7x7 layer's pass: a few per cent faster)
        VectorSpecies<Float> ps = kw <= 8 && L >= 8 ? FloatVector.SPECIES_256 : S;
        int pl = ps.length();
        int perRun = 0;
        for (int col = 0; col < NR; col++) {
            int pieces = 0;
            for (int done = 0; done < kw;) {
                int len = Math.min(kw - done, NR - (col + done) % NR);
                pieces += Math.ceilDiv(len, pl);
                done += len;
            }
            perRun = Math.max(perRun, pieces);
        }
        int maxPieces = cpg * k[0] * k[1] * perRun;
        int[] pieceSrc = tasks.allocInts(g.groups() * maxPieces);
        int[] pieceDst = tasks.allocInts(g.groups() * maxPieces);
        int[] pieceCount = new int[g.groups()];
        int panelStride = filterPanelStride();
        for (int gr = 0; gr < g.groups(); gr++) {
            int np = 0;
            for (int r = 0; r < kr; r++) {
                int c = gr * cpg + r / kv;
                int tap = r % kv;
                int kd = tap / (k[1] * k[2]);
                int kh = tap / k[2] % k[1];
                int off = ((c * pd.e0 + kd * dil[0]) * pd.e1 + kh * dil[1]) * pd.e2;
                colOff[gr * kr + r] = off + tap % k[2] * dil[2];
                if (runs && tap % k[2] == 0) {
                    for (int done = 0; done < kw;) {
                        int rr = r + done;
                        int len = Math.min(kw - done, NR - rr % NR);
                        for (int j = 0; j < len; j += pl, np++) {
                            pieceSrc[gr * maxPieces + np] = off + done + j;
                            pieceDst[gr * maxPieces + np] = rr / NR * panelStride + rr % NR + j;
                        }
                        done += len;
                    }
                }
            }
            pieceCount[gr] = np;
        }
        // A rows: the group's output channels, the last repeated to whole panels (those sums are dropped)
        int[] dyOffs = tasks.allocInts(g.groups() * kPanels * MR);
        int positions = g.outSpatial();
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int i = 0; i < kPanels * MR; i++) {
                dyOffs[gr * kPanels * MR + i] = (gr * kpg + Math.min(i, kpg - 1)) * positions;
            }
        }
        int blocks = Math.ceilDiv(positions, FILTER_BLOCK);
        int accFloats = Math.toIntExact(filterAccFloats(g));
        java.util.concurrent.ConcurrentLinkedQueue<float[]> parts = new java.util.concurrent.ConcurrentLinkedQueue<>();
        ThreadLocal<float[]> sums = ThreadLocal.withInitial(() -> {
            float[] a = tasks.alloc(accFloats);
            parts.add(a);
            return a;
        });
        ThreadLocal<float[]> panels = ThreadLocal.withInitial(() -> tasks.alloc(rPanels * panelStride + NR));
        ThreadLocal<float[]> aPanels = ThreadLocal.withInitial(() -> tasks.alloc(kPanels * MR * FILTER_BLOCK));
        // per A panel: the gather's lanes, L / MR positions x the panel's 8 rows, relative to its first row
        int[][] gatherMaps = new int[g.groups() * kPanels][];
        for (int i = 0; i < gatherMaps.length; i++) {
            int[] map = tasks.allocInts(L);
            for (int j = 0; j < L; j++) {
                map[j] = dyOffs[i * MR + j % MR] - dyOffs[i * MR] + j / MR;
            }
            gatherMaps[i] = map;
        }
        int perImage = g.groups() * blocks;
        for (int n0 = 0; n0 < g.n(); n0 += round) {
            int first = n0;
            int images = Math.min(round, g.n() - n0);
            fillPadded(g, pd, x, first, images, xp, tasks);
            tasks.run(images * perImage, t -> {
                int image = first + t / perImage;
                int slot = t / perImage * pd.floats;
                int gr = t % perImage / blocks;
                int p0 = t % blocks * FILTER_BLOCK;
                int kc = Math.min(FILTER_BLOCK, positions - p0);
                float[] bp = panels.get();
                float[] acc = sums.get();
                // the position's corner in the padded input, stepped along (no divisions per position)
                int ow = p0 % out[2];
                int oh = p0 / out[2] % out[1];
                int od = p0 / out[2] / out[1];
                int rowBase = slot + ((od * s[0]) * pd.e1 + oh * s[1]) * pd.e2;
                for (int kk = 0; kk < kc; kk++, ow++) {
                    if (ow == out[2]) {
                        ow = 0;
                        if (++oh == out[1]) {
                            oh = 0;
                            od++;
                        }
                        rowBase = slot + ((od * s[0]) * pd.e1 + oh * s[1]) * pd.e2;
                    }
                    int base = rowBase + ow * s[2];
                    int row = kk * NR;
                    if (runs) {
                        int p1 = gr * maxPieces + pieceCount[gr];
                        if (pl == 8) {
                            copyPieces8(xp, base, pieceSrc, pieceDst, gr * maxPieces, p1, bp, row);
                        } else {
                            copyPieces(xp, base, pieceSrc, pieceDst, gr * maxPieces, p1, bp, row);
                        }
                    } else {
                        for (int r = 0; r < kr; r++) {
                            bp[r / NR * panelStride + row + r % NR] = xp[base + colOff[gr * kr + r]];
                        }
                    }
                }
                int dyBase = image * g.cOut() * positions + p0;
                // A: each panel's 8 rows of dy over the block, interleaved (a[k * MR + i]): a gather takes L / MR
                // positions of all 8 rows at once; then the packed product, which ran a third faster than reading the 8
                // rows in place
                float[] ap = aPanels.get();
                for (int ir = 0; ir < kPanels; ir++) {
                    int o = (gr * kPanels + ir) * MR;
                    int aOff = ir * MR * kc;
                    int kk = 0;
                    if (GATHER) {
                        kk = gatherPanel(dy, dyBase + dyOffs[o], gatherMaps[gr * kPanels + ir], kc, ap, aOff);
                    }
                    for (; kk < kc; kk++) {
                        for (int i = 0; i < MR; i++) {
                            ap[aOff + kk * MR + i] = dy[dyBase + dyOffs[o + i] + kk];
                        }
                    }
                }
                for (int jr = 0; jr < rPanels; jr++) {
                    for (int ir = 0; ir < kPanels; ir++) {
                        PackedGemm.tile(ap, ir * MR * kc, bp, jr * panelStride, kc, acc,
                                ((gr * kPanels + ir) * rPanels + jr) * MR * NR, NR);
                    }
                }
            });
        }
        float[] total = null;
        for (float[] part : parts) {
            if (total == null) {
                total = part;
            } else {
                for (int i = 0; i < accFloats; i++) {
                    total[i] += part[i];
                }
            }
        }
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int kk = 0; kk < kpg; kk++) {
                for (int r = 0; r < kr; r++) {
                    dw[(gr * kpg + kk) * kr + r] = total == null ? 0f
                            : total[((gr * kPanels + kk / MR) * rPanels + r / NR) * MR * NR + (kk % MR) * NR + r % NR];
                }
            }
        }
    }

    /**
     * Output positions per block of {@link #backwardFilterOcVectors}: its dy block, transposed, is 256 KiB (L2); longer
     * runs of each channel's dy make the transposition's loads cheaper (512 against 128: +11 % on the 7x7 stem, 256
     * +4 %; 1024, a 4 KiB page of each row, only with the rows taken 16 at a time over the whole block: +10-18 %).
     */
    static final int OC_BLOCK = 1024;
    /** Positions of a block whose taps run together: their dy^T (32 KiB) stays in L1. */
    static final int OC_PART = 128;
    /** Output channels per tile of {@link #backwardFilterOcVectors}: 4 vectors. */
    static final int OC_TILE = 4 * L;
    /** Taps per tile of {@link #backwardFilterOcVectors}: 4 x 6 accumulators, 4 dy vectors and a broadcast in 32 registers. */
    static final int OC_TAPS = 6;
    /** Taps per tile of {@link #backwardFilterOcVectors} where a tile is one 7-tap row of the kernel along w at unit dilation. */
    static final int OC_RUN = 7;

    /**
     * Whether {@link #backwardFilterOcVectors} computes {@code g}'s filter gradient: whole tiles of output channels per
     * group, and vectors of 16 lanes or more (the tile's 24 accumulators need 32 vector registers).
     */
    static boolean ocVectors(ConvGeometry g) {
        return L >= 16 && g.cOutPerGroup() % OC_TILE == 0;
    }

    /**
     * Whether {@link #backwardFilterOcVectors} tiles {@code g}'s taps by the kernel's rows along w: 7 taps at unit dilation,
     * consecutive floats of the padded input, so a position's 7 reads are at constant distances from one index (one
     * range check instead of seven: the tiles ran about a fifth faster than 6 taps at arbitrary offsets).
     */
    static boolean ocRun(ConvGeometry g) {
        return g.k()[2] == OC_RUN && g.dil()[2] == 1;
    }

    /** Taps per tile of {@link #backwardFilterOcVectors} for {@code g}. */
    static int ocTaps(ConvGeometry g) {
        return ocRun(g) ? OC_RUN : OC_TAPS;
    }

    /**
     * backward-filter with the vectors along output channels: dw[oc][t] = sum over positions p of dy[oc][p] x x[p + t],
     * tiles of 4 vectors of output channels x {@link #OC_TAPS} taps accumulated in registers over a block of positions,
     * x read in place from its zero-padded copy (one broadcast per tap and position, no im2col panel) and dy's block
     * transposed once into positions x channels (gathers), so the inner loop loads 4 vectors and 6 floats per 24 FMAs.
     * The reduction's taps are padded to whole tiles by repeating the last tap (those sums are dropped). Each thread adds
     * into sums of its own, added together at the end; dw is overwritten.
     */
    static void backwardFilterOcVectors(ConvGeometry g, float[] x, float[] dy, float[] dw, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int[] k = g.k();
        int[] s = g.s();
        int[] dil = g.dil();
        int[] in = g.in();
        int[] out = g.out();
        int[] pad = g.pad();
        boolean run = ocRun(g);
        int taps = run ? OC_RUN : OC_TAPS;
        int krPad = roundUp(kr, taps);
        int chunks = kpg / OC_TILE;
        Padded pd = new Padded(g);
        int round = imagesPerRound(g, pd.floats);
        float[] xp = pd.alloc(round, tasks);
        // per group: where tap (c, kd, kh, kw) is relative to a position's corner in the padded input
        int[] colOff = tasks.allocInts(g.groups() * krPad);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int r = 0; r < krPad; r++) {
                int rr = Math.min(r, kr - 1);
                int c = gr * cpg + rr / kv;
                int tap = rr % kv;
                int kd = tap / (k[1] * k[2]);
                int kh = tap / k[2] % k[1];
                colOff[gr * krPad + r] = ((c * pd.e0 + kd * dil[0]) * pd.e1 + kh * dil[1]) * pd.e2 + tap % k[2] * dil[2];
            }
        }
        int positions = g.outSpatial();
        // a gather's lanes: L output channels at one position
        int[] map = tasks.allocInts(L);
        for (int j = 0; j < L; j++) {
            map[j] = j * positions;
        }
        int blocks = Math.ceilDiv(positions, OC_BLOCK);
        int sumFloats = g.groups() * krPad * kpg;
        java.util.concurrent.ConcurrentLinkedQueue<float[]> parts = new java.util.concurrent.ConcurrentLinkedQueue<>();
        ThreadLocal<float[]> sums = ThreadLocal.withInitial(() -> {
            float[] a = tasks.alloc(sumFloats);
            parts.add(a);
            return a;
        });
        ThreadLocal<float[]> dyTs = ThreadLocal.withInitial(() -> tasks.alloc(OC_BLOCK * OC_TILE));
        ThreadLocal<float[]> tiles = ThreadLocal.withInitial(() -> tasks.alloc(taps * OC_TILE));
        ThreadLocal<int[]> cornerss = ThreadLocal.withInitial(() -> tasks.allocInts(OC_BLOCK));
        int perImage = g.groups() * blocks;
        for (int n0 = 0; n0 < g.n(); n0 += round) {
            int first = n0;
            int images = Math.min(round, g.n() - n0);
            fillPadded(g, pd, x, first, images, xp, tasks);
            tasks.run(images * perImage, t -> {
                int image = first + t / perImage;
                int slot = t / perImage * pd.floats;
                int gr = t % perImage / blocks;
                int p0 = t % blocks * OC_BLOCK;
                int kc = Math.min(OC_BLOCK, positions - p0);
                float[] acc = sums.get();
                float[] dyT = dyTs.get();
                int[] corners = cornerss.get();
                float[] tmp = tiles.get();
                // each position's corner in the padded input, stepped along (no divisions per position)
                int ow = p0 % out[2];
                int oh = p0 / out[2] % out[1];
                int od = p0 / out[2] / out[1];
                int rowBase = slot + ((od * s[0]) * pd.e1 + oh * s[1]) * pd.e2;
                for (int kk = 0; kk < kc; kk++, ow++) {
                    if (ow == out[2]) {
                        ow = 0;
                        if (++oh == out[1]) {
                            oh = 0;
                            od++;
                        }
                        rowBase = slot + ((od * s[0]) * pd.e1 + oh * s[1]) * pd.e2;
                    }
                    corners[kk] = rowBase + ow * s[2];
                }
                for (int ch = 0; ch < chunks; ch++) {
                    int oc = ch * OC_TILE;
                    transposeBlock(dy, (image * g.cOut() + gr * kpg + oc) * positions + p0, positions, map, kc, dyT);
                    // the taps over a part of the block at a time, its dy^T (32 KiB) in L1
                    for (int q0 = 0; q0 < kc; q0 += OC_PART) {
                        int q1 = Math.min(kc, q0 + OC_PART);
                        for (int t0 = 0; t0 < krPad; t0 += taps) {
                            if (run) {
                                ocRun7(dyT, 0, q0, q1, xp, corners, colOff, gr * krPad + t0, tmp);
                                ocRun7(dyT, OC_TILE / 2, q0, q1, xp, corners, colOff, gr * krPad + t0, tmp);
                            } else {
                                ocTile(dyT, q0, q1, xp, corners, colOff, gr * krPad + t0, tmp);
                            }
                            addTile(tmp, taps, acc, (gr * krPad + t0) * kpg + oc, kpg);
                        }
                    }
                }
            });
        }
        float[] total = null;
        for (float[] part : parts) {
            if (total == null) {
                total = part;
            } else {
                for (int i = 0; i < sumFloats; i++) {
                    total[i] += part[i];
                }
            }
        }
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int kk = 0; kk < kpg; kk++) {
                for (int r = 0; r < kr; r++) {
                    dw[(gr * kpg + kk) * kr + r] = total == null ? 0f : total[(gr * krPad + r) * kpg + kk];
                }
            }
        }
    }

    /**
     * dyT[p * OC_TILE + j] = dy[at + j * stride + p] for p < kc, j < OC_TILE: with 16 lanes, 16 x 16 squares transposed in
     * registers ({@link #transpose16}); the positions past the last whole square (and every position with other widths) by
     * gathers of L channels at a time.
     */
    private static void transposeBlock(float[] dy, int at, int stride, int[] map, int kc, float[] dyT) {
        int p = 0;
        if (L == 16) {
            // 16 channels at a time over the whole block: 16 rows of dy read front to back, a 4 KiB page each with
            // blocks of 1024 positions, which the hardware prefetchers run ahead of (the loads had waited on DRAM
            // for a quarter of the pass with the 64 channels' rows advanced together, 64 bytes at a time)
            int whole = kc & -16;
            for (int v = 0; v < OC_TILE / 16; v++) {
                for (int q = 0; q < whole; q += 16) {
                    transpose16(dy, at + v * 16 * stride + q, stride, dyT, q * OC_TILE + v * 16, OC_TILE);
                }
            }
            p = whole;
        }
        for (; p < kc; p++) {
            for (int v = 0; v < OC_TILE / L; v++) {
                FloatVector.fromArray(S, dy, at + v * L * stride + p, map, 0).intoArray(dyT, p * OC_TILE + v * L);
            }
        }
    }

    // lane i -> lane i ^ d, and the lanes whose bit d is set, for the transposing swaps of 8, 4, 2 and 1 lanes
    private static final VectorShuffle<Float> SWAP8 = VectorShuffle.fromOp(FloatVector.SPECIES_512, i -> i ^ 8);
    private static final VectorShuffle<Float> SWAP4 = VectorShuffle.fromOp(FloatVector.SPECIES_512, i -> i ^ 4);
    private static final VectorShuffle<Float> SWAP2 = VectorShuffle.fromOp(FloatVector.SPECIES_512, i -> i ^ 2);
    private static final VectorShuffle<Float> SWAP1 = VectorShuffle.fromOp(FloatVector.SPECIES_512, i -> i ^ 1);
    private static final VectorMask<Float> HIGH8 = VectorMask.fromLong(FloatVector.SPECIES_512, 0xFF00L);
    private static final VectorMask<Float> HIGH4 = VectorMask.fromLong(FloatVector.SPECIES_512, 0xF0F0L);
    private static final VectorMask<Float> HIGH2 = VectorMask.fromLong(FloatVector.SPECIES_512, 0xCCCCL);
    private static final VectorMask<Float> HIGH1 = VectorMask.fromLong(FloatVector.SPECIES_512, 0xAAAAL);

    /**
     * dst[d0 + i * ldd + j] = src[s0 + j * stride + i] for i, j < 16: 16 rows loaded whole, then four rounds that swap
     * bit d of the row with bit d of the lane (rows r and r + d trade the lanes with bit d set in r for those without in
     * r + d: a rearrange and a blend each), then 16 rows stored whole. 128 register operations instead of 16 gathers of
     * 16 scattered floats each.
     */
    private static void transpose16(float[] src, int s0, int stride, float[] dst, int d0, int ldd) {
        FloatVector r0 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 0 * stride);
        FloatVector r1 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 1 * stride);
        FloatVector r2 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 2 * stride);
        FloatVector r3 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 3 * stride);
        FloatVector r4 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 4 * stride);
        FloatVector r5 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 5 * stride);
        FloatVector r6 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 6 * stride);
        FloatVector r7 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 7 * stride);
        FloatVector r8 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 8 * stride);
        FloatVector r9 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 9 * stride);
        FloatVector r10 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 10 * stride);
        FloatVector r11 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 11 * stride);
        FloatVector r12 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 12 * stride);
        FloatVector r13 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 13 * stride);
        FloatVector r14 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 14 * stride);
        FloatVector r15 = FloatVector.fromArray(FloatVector.SPECIES_512, src, s0 + 15 * stride);
        FloatVector t0 = r0.blend(r8.rearrange(SWAP8), HIGH8);
        r8 = r0.rearrange(SWAP8).blend(r8, HIGH8);
        r0 = t0;
        FloatVector t1 = r1.blend(r9.rearrange(SWAP8), HIGH8);
        r9 = r1.rearrange(SWAP8).blend(r9, HIGH8);
        r1 = t1;
        FloatVector t2 = r2.blend(r10.rearrange(SWAP8), HIGH8);
        r10 = r2.rearrange(SWAP8).blend(r10, HIGH8);
        r2 = t2;
        FloatVector t3 = r3.blend(r11.rearrange(SWAP8), HIGH8);
        r11 = r3.rearrange(SWAP8).blend(r11, HIGH8);
        r3 = t3;
        FloatVector t4 = r4.blend(r12.rearrange(SWAP8), HIGH8);
        r12 = r4.rearrange(SWAP8).blend(r12, HIGH8);
        r4 = t4;
        FloatVector t5 = r5.blend(r13.rearrange(SWAP8), HIGH8);
        r13 = r5.rearrange(SWAP8).blend(r13, HIGH8);
        r5 = t5;
        FloatVector t6 = r6.blend(r14.rearrange(SWAP8), HIGH8);
        r14 = r6.rearrange(SWAP8).blend(r14, HIGH8);
        r6 = t6;
        FloatVector t7 = r7.blend(r15.rearrange(SWAP8), HIGH8);
        r15 = r7.rearrange(SWAP8).blend(r15, HIGH8);
        r7 = t7;
        t0 = r0.blend(r4.rearrange(SWAP4), HIGH4);
        r4 = r0.rearrange(SWAP4).blend(r4, HIGH4);
        r0 = t0;
        t1 = r1.blend(r5.rearrange(SWAP4), HIGH4);
        r5 = r1.rearrange(SWAP4).blend(r5, HIGH4);
        r1 = t1;
        t2 = r2.blend(r6.rearrange(SWAP4), HIGH4);
        r6 = r2.rearrange(SWAP4).blend(r6, HIGH4);
        r2 = t2;
        t3 = r3.blend(r7.rearrange(SWAP4), HIGH4);
        r7 = r3.rearrange(SWAP4).blend(r7, HIGH4);
        r3 = t3;
        FloatVector t8 = r8.blend(r12.rearrange(SWAP4), HIGH4);
        r12 = r8.rearrange(SWAP4).blend(r12, HIGH4);
        r8 = t8;
        FloatVector t9 = r9.blend(r13.rearrange(SWAP4), HIGH4);
        r13 = r9.rearrange(SWAP4).blend(r13, HIGH4);
        r9 = t9;
        FloatVector t10 = r10.blend(r14.rearrange(SWAP4), HIGH4);
        r14 = r10.rearrange(SWAP4).blend(r14, HIGH4);
        r10 = t10;
        FloatVector t11 = r11.blend(r15.rearrange(SWAP4), HIGH4);
        r15 = r11.rearrange(SWAP4).blend(r15, HIGH4);
        r11 = t11;
        t0 = r0.blend(r2.rearrange(SWAP2), HIGH2);
        r2 = r0.rearrange(SWAP2).blend(r2, HIGH2);
        r0 = t0;
        t1 = r1.blend(r3.rearrange(SWAP2), HIGH2);
        r3 = r1.rearrange(SWAP2).blend(r3, HIGH2);
        r1 = t1;
        t4 = r4.blend(r6.rearrange(SWAP2), HIGH2);
        r6 = r4.rearrange(SWAP2).blend(r6, HIGH2);
        r4 = t4;
        t5 = r5.blend(r7.rearrange(SWAP2), HIGH2);
        r7 = r5.rearrange(SWAP2).blend(r7, HIGH2);
        r5 = t5;
        t8 = r8.blend(r10.rearrange(SWAP2), HIGH2);
        r10 = r8.rearrange(SWAP2).blend(r10, HIGH2);
        r8 = t8;
        t9 = r9.blend(r11.rearrange(SWAP2), HIGH2);
        r11 = r9.rearrange(SWAP2).blend(r11, HIGH2);
        r9 = t9;
        FloatVector t12 = r12.blend(r14.rearrange(SWAP2), HIGH2);
        r14 = r12.rearrange(SWAP2).blend(r14, HIGH2);
        r12 = t12;
        FloatVector t13 = r13.blend(r15.rearrange(SWAP2), HIGH2);
        r15 = r13.rearrange(SWAP2).blend(r15, HIGH2);
        r13 = t13;
        t0 = r0.blend(r1.rearrange(SWAP1), HIGH1);
        r1 = r0.rearrange(SWAP1).blend(r1, HIGH1);
        r0 = t0;
        t2 = r2.blend(r3.rearrange(SWAP1), HIGH1);
        r3 = r2.rearrange(SWAP1).blend(r3, HIGH1);
        r2 = t2;
        t4 = r4.blend(r5.rearrange(SWAP1), HIGH1);
        r5 = r4.rearrange(SWAP1).blend(r5, HIGH1);
        r4 = t4;
        t6 = r6.blend(r7.rearrange(SWAP1), HIGH1);
        r7 = r6.rearrange(SWAP1).blend(r7, HIGH1);
        r6 = t6;
        t8 = r8.blend(r9.rearrange(SWAP1), HIGH1);
        r9 = r8.rearrange(SWAP1).blend(r9, HIGH1);
        r8 = t8;
        t10 = r10.blend(r11.rearrange(SWAP1), HIGH1);
        r11 = r10.rearrange(SWAP1).blend(r11, HIGH1);
        r10 = t10;
        t12 = r12.blend(r13.rearrange(SWAP1), HIGH1);
        r13 = r12.rearrange(SWAP1).blend(r13, HIGH1);
        r12 = t12;
        FloatVector t14 = r14.blend(r15.rearrange(SWAP1), HIGH1);
        r15 = r14.rearrange(SWAP1).blend(r15, HIGH1);
        r14 = t14;
        r0.intoArray(dst, d0 + 0 * ldd);
        r1.intoArray(dst, d0 + 1 * ldd);
        r2.intoArray(dst, d0 + 2 * ldd);
        r3.intoArray(dst, d0 + 3 * ldd);
        r4.intoArray(dst, d0 + 4 * ldd);
        r5.intoArray(dst, d0 + 5 * ldd);
        r6.intoArray(dst, d0 + 6 * ldd);
        r7.intoArray(dst, d0 + 7 * ldd);
        r8.intoArray(dst, d0 + 8 * ldd);
        r9.intoArray(dst, d0 + 9 * ldd);
        r10.intoArray(dst, d0 + 10 * ldd);
        r11.intoArray(dst, d0 + 11 * ldd);
        r12.intoArray(dst, d0 + 12 * ldd);
        r13.intoArray(dst, d0 + 13 * ldd);
        r14.intoArray(dst, d0 + 14 * ldd);
        r15.intoArray(dst, d0 + 15 * ldd);
    }

    /** acc[at + t * kpg + j] += tmp[t * OC_TILE + j] for the tile's taps t and channels j. */
    private static void addTile(float[] tmp, int taps, float[] acc, int at, int kpg) {
        for (int t = 0; t < taps; t++) {
            for (int j = 0; j < OC_TILE; j += L) {
                FloatVector.fromArray(S, acc, at + t * kpg + j).add(FloatVector.fromArray(S, tmp, t * OC_TILE + j))
                        .intoArray(acc, at + t * kpg + j);
            }
        }
    }


    /**
     * One tile of {@link #OC_TAPS} taps of {@link #backwardFilterOcVectors} over a block's kc positions: tmp[t * OC_TILE + oc]
     * = sum over p of dyT[p][oc] x xp[bases[p] + colOff[t0 + t]], 4 vectors of output channels x the taps held in
     * registers (stored to tmp, not added into the sums here: with 24 adds inline C2 stopped inlining and boxed them).
     */
    private static void ocTile(float[] dyT, int q0, int q1, float[] xp, int[] bases, int[] colOff, int t0, float[] tmp) {
        int o0 = colOff[t0 + 0];
        int o1 = colOff[t0 + 1];
        int o2 = colOff[t0 + 2];
        int o3 = colOff[t0 + 3];
        int o4 = colOff[t0 + 4];
        int o5 = colOff[t0 + 5];
        FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
        FloatVector a40 = FloatVector.zero(S), a41 = FloatVector.zero(S), a42 = FloatVector.zero(S), a43 = FloatVector.zero(S);
        FloatVector a50 = FloatVector.zero(S), a51 = FloatVector.zero(S), a52 = FloatVector.zero(S), a53 = FloatVector.zero(S);
        for (int p = q0; p < q1; p++) {
            int b = bases[p];
            int d = p * OC_TILE;
            FloatVector d0 = FloatVector.fromArray(S, dyT, d + 0 * L);
            FloatVector d1 = FloatVector.fromArray(S, dyT, d + 1 * L);
            FloatVector d2 = FloatVector.fromArray(S, dyT, d + 2 * L);
            FloatVector d3 = FloatVector.fromArray(S, dyT, d + 3 * L);
            FloatVector x0 = FloatVector.broadcast(S, xp[b + o0]);
            a00 = d0.fma(x0, a00);
            a01 = d1.fma(x0, a01);
            a02 = d2.fma(x0, a02);
            a03 = d3.fma(x0, a03);
            FloatVector x1 = FloatVector.broadcast(S, xp[b + o1]);
            a10 = d0.fma(x1, a10);
            a11 = d1.fma(x1, a11);
            a12 = d2.fma(x1, a12);
            a13 = d3.fma(x1, a13);
            FloatVector x2 = FloatVector.broadcast(S, xp[b + o2]);
            a20 = d0.fma(x2, a20);
            a21 = d1.fma(x2, a21);
            a22 = d2.fma(x2, a22);
            a23 = d3.fma(x2, a23);
            FloatVector x3 = FloatVector.broadcast(S, xp[b + o3]);
            a30 = d0.fma(x3, a30);
            a31 = d1.fma(x3, a31);
            a32 = d2.fma(x3, a32);
            a33 = d3.fma(x3, a33);
            FloatVector x4 = FloatVector.broadcast(S, xp[b + o4]);
            a40 = d0.fma(x4, a40);
            a41 = d1.fma(x4, a41);
            a42 = d2.fma(x4, a42);
            a43 = d3.fma(x4, a43);
            FloatVector x5 = FloatVector.broadcast(S, xp[b + o5]);
            a50 = d0.fma(x5, a50);
            a51 = d1.fma(x5, a51);
            a52 = d2.fma(x5, a52);
            a53 = d3.fma(x5, a53);
        }
        a00.intoArray(tmp, (0 * 4 + 0) * L);
        a01.intoArray(tmp, (0 * 4 + 1) * L);
        a02.intoArray(tmp, (0 * 4 + 2) * L);
        a03.intoArray(tmp, (0 * 4 + 3) * L);
        a10.intoArray(tmp, (1 * 4 + 0) * L);
        a11.intoArray(tmp, (1 * 4 + 1) * L);
        a12.intoArray(tmp, (1 * 4 + 2) * L);
        a13.intoArray(tmp, (1 * 4 + 3) * L);
        a20.intoArray(tmp, (2 * 4 + 0) * L);
        a21.intoArray(tmp, (2 * 4 + 1) * L);
        a22.intoArray(tmp, (2 * 4 + 2) * L);
        a23.intoArray(tmp, (2 * 4 + 3) * L);
        a30.intoArray(tmp, (3 * 4 + 0) * L);
        a31.intoArray(tmp, (3 * 4 + 1) * L);
        a32.intoArray(tmp, (3 * 4 + 2) * L);
        a33.intoArray(tmp, (3 * 4 + 3) * L);
        a40.intoArray(tmp, (4 * 4 + 0) * L);
        a41.intoArray(tmp, (4 * 4 + 1) * L);
        a42.intoArray(tmp, (4 * 4 + 2) * L);
        a43.intoArray(tmp, (4 * 4 + 3) * L);
        a50.intoArray(tmp, (5 * 4 + 0) * L);
        a51.intoArray(tmp, (5 * 4 + 1) * L);
        a52.intoArray(tmp, (5 * 4 + 2) * L);
        a53.intoArray(tmp, (5 * 4 + 3) * L);
    }



    /**
     * {@link #ocTile} for 7 taps at consecutive floats from colOff[t0] (a kernel row along w at unit dilation), over half
     * the tile's output channels (2 vectors from {@code dOff}) and positions [q0, q1): 14 accumulators, 2 dy vectors and
     * a broadcast in registers. On data in L1 this ran at 0.93 of the peak against 0.82 for all 4 vectors at once (28
     * accumulators, 4 dy vectors and a broadcast: 33 registers, one more than there are); tmp[t * OC_TILE + dOff ..].
     */
    private static void ocRun7(float[] dyT, int dOff, int q0, int q1, float[] xp, int[] bases, int[] colOff, int t0,
            float[] tmp) {
        int o0 = colOff[t0];
        FloatVector a00 = FloatVector.zero(S);
        FloatVector a01 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S);
        FloatVector a11 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S);
        FloatVector a21 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S);
        FloatVector a31 = FloatVector.zero(S);
        FloatVector a40 = FloatVector.zero(S);
        FloatVector a41 = FloatVector.zero(S);
        FloatVector a50 = FloatVector.zero(S);
        FloatVector a51 = FloatVector.zero(S);
        FloatVector a60 = FloatVector.zero(S);
        FloatVector a61 = FloatVector.zero(S);
        for (int p = q0; p < q1; p++) {
            int b = bases[p] + o0;
            int d = p * OC_TILE + dOff;
            FloatVector d0 = FloatVector.fromArray(S, dyT, d);
            FloatVector d1 = FloatVector.fromArray(S, dyT, d + L);
            FloatVector x0 = FloatVector.broadcast(S, xp[b]);
            a00 = d0.fma(x0, a00);
            a01 = d1.fma(x0, a01);
            FloatVector x1 = FloatVector.broadcast(S, xp[b + 1]);
            a10 = d0.fma(x1, a10);
            a11 = d1.fma(x1, a11);
            FloatVector x2 = FloatVector.broadcast(S, xp[b + 2]);
            a20 = d0.fma(x2, a20);
            a21 = d1.fma(x2, a21);
            FloatVector x3 = FloatVector.broadcast(S, xp[b + 3]);
            a30 = d0.fma(x3, a30);
            a31 = d1.fma(x3, a31);
            FloatVector x4 = FloatVector.broadcast(S, xp[b + 4]);
            a40 = d0.fma(x4, a40);
            a41 = d1.fma(x4, a41);
            FloatVector x5 = FloatVector.broadcast(S, xp[b + 5]);
            a50 = d0.fma(x5, a50);
            a51 = d1.fma(x5, a51);
            FloatVector x6 = FloatVector.broadcast(S, xp[b + 6]);
            a60 = d0.fma(x6, a60);
            a61 = d1.fma(x6, a61);
        }
        a00.intoArray(tmp, 0 * OC_TILE + dOff);
        a01.intoArray(tmp, 0 * OC_TILE + dOff + L);
        a10.intoArray(tmp, 1 * OC_TILE + dOff);
        a11.intoArray(tmp, 1 * OC_TILE + dOff + L);
        a20.intoArray(tmp, 2 * OC_TILE + dOff);
        a21.intoArray(tmp, 2 * OC_TILE + dOff + L);
        a30.intoArray(tmp, 3 * OC_TILE + dOff);
        a31.intoArray(tmp, 3 * OC_TILE + dOff + L);
        a40.intoArray(tmp, 4 * OC_TILE + dOff);
        a41.intoArray(tmp, 4 * OC_TILE + dOff + L);
        a50.intoArray(tmp, 5 * OC_TILE + dOff);
        a51.intoArray(tmp, 5 * OC_TILE + dOff + L);
        a60.intoArray(tmp, 6 * OC_TILE + dOff);
        a61.intoArray(tmp, 6 * OC_TILE + dOff + L);
    }

    // ---------------------------------------------------------------- backward-data

    /**
     * dx = the input gradient of the plain convolution {@code g}. dcol = w^T x dy, 8 reduction rows (c, tap) x 32 output
     * positions per tile, reduced over the group's output channels with dy's block packed by plain vector moves (no
     * transpose); each tile row is added into the padded, phase-split planes of dx, where row (c, tap) over a run of
     * positions is a contiguous slice (no col2im index arithmetic). Tasks take bands of output rows, alternate bands
     * at a time, so no two add into one element; per image, the planes are copied into dx phase by phase and cleared.
     */
    static void backwardData(ConvGeometry g, float[] dy, float[] w, float[] dx, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int rpad = roundUp(kr, MR);
        int panels = rpad / MR;
        // A = w^T per group in MR-row panels: a[gr][ir][k][i] = w[gr * kpg + k][ir * MR + i], rows past kr zero
        Planes pl = new Planes(g);
        // the rows in the order (c, kd, kw, kh), kh fastest, where that leaves no two rows of a tile overlapping in the
        // planes (rows a kernel row apart are a plane row apart): each tile then adds its rows straight from the
        // registers (PackedGemm.tileAdd); otherwise in (c, tap) order, each tile stored and added block by block
        boolean fused = addsFromRegisters(g);
        int[] order = fused ? rowsByColumn(g) : java.util.stream.IntStream.range(0, kr).toArray();
        int[] offs = tasks.allocInts(g.groups() * rpad);
        rowOffsets(g, pl, order, offs, rpad);
        float[] a = tasks.alloc(g.groups() * rpad * kpg);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int kk = 0; kk < kpg; kk++) {
                int src = (gr * kpg + kk) * kr;
                for (int r = 0; r < kr; r++) {
                    a[gr * rpad * kpg + r / MR * MR * kpg + kk * MR + r % MR] = w[src + order[r]];
                }
            }
        }
        int positions = g.outSpatial();
        int round = imagesPerRound(g, pl.floats);
        float[] dq = tasks.alloc(round * pl.floats);
        ThreadLocal<float[]> packed = ThreadLocal.withInitial(() -> tasks.alloc(DATA_BLOCKS * kpg * NR));
        ThreadLocal<float[]> tiles = ThreadLocal.withInitial(() -> tasks.alloc(DATA_BLOCKS * MR * NR));
        ThreadLocal<int[]> segments = ThreadLocal.withInitial(() -> tasks.allocInts(DATA_BLOCKS * 3 * NR));
        // bands of output rows (of depth slices for 3D outputs), at least as tall as the kernel's reach in the planes, so
        // that bands two apart add into disjoint rows: even bands run together, then odd ones, into one set of planes
        int bd = g.out()[0] > 1 ? 0 : 1;
        int extent = g.out()[bd];
        int reach = g.dil()[bd] * (g.k()[bd] - 1) / g.s()[bd];
        int bands = Math.max(1, Math.min(extent / Math.max(1, reach), 4 * tasks.threads()));
        int bandPositions = bd == 0 ? g.out()[1] * g.out()[2] : g.out()[2];
        for (int n0 = 0; n0 < g.n(); n0 += round) {
            int firstImage = n0;
            int images = Math.min(round, g.n() - n0);
            for (int stage = 0; stage < 2; stage++) {
                int first = stage;
                int perImage = g.groups() * Math.ceilDiv(bands - first, 2);
                tasks.run(images * perImage, t -> {
                    int image = firstImage + t / perImage;
                    int slot = t / perImage * pl.floats;
                    int gr = t % perImage % g.groups();
                    int band = first + 2 * (t % perImage / g.groups());
                    int pStart = (int) ((long) extent * band / bands) * bandPositions;
                    int pEnd = (int) ((long) extent * (band + 1) / bands) * bandPositions;
                    float[] bp = packed.get();
                    float[] c = tiles.get();
                    int[] seg = segments.get();
                    int[] nsegs = new int[DATA_BLOCKS];
                    // DATA_BLOCKS blocks of 32 positions share each A panel (w^T streamed once per group of blocks)
                    for (int q0 = pStart; q0 < pEnd; q0 += DATA_BLOCKS * NR) {
                        int nb = Math.min(DATA_BLOCKS, Math.ceilDiv(pEnd - q0, NR));
                        for (int j = 0; j < nb; j++) {
                            int p0 = q0 + j * NR;
                            int cols = Math.min(NR, pEnd - p0);
                            int nseg = segments(g, pl, p0, cols, seg, j * 3 * NR);
                            nsegs[j] = cols == NR && nseg == 1 ? 0 : nseg;
                        }
                        // channel by channel, the blocks' positions in one run of dy (one stream per channel, not per block)
                        int src = (image * g.cOut() + gr * kpg) * positions + q0;
                        for (int kk = 0; kk < kpg; kk++, src += positions) {
                            for (int j = 0; j < nb; j++) {
                                int cols = Math.min(NR, pEnd - q0 - j * NR);
                                int b = j * kpg * NR + kk * NR;
                                if (cols == NR) {
                                    copyRow(dy, src + j * NR, bp, b);
                                } else {
                                    System.arraycopy(dy, src + j * NR, bp, b, cols);
                                    java.util.Arrays.fill(bp, b + cols, b + NR, 0f);
                                }
                            }
                        }
                        for (int ir = 0; ir < panels; ir++) {
                            int rows = Math.min(MR, kr - ir * MR);
                            for (int j = 0; j < nb; j++) {
                                if (fused && rows == MR && nsegs[j] == 0) {
                                    PackedGemm.tileAdd(a, (gr * panels + ir) * MR * kpg, bp, j * kpg * NR, kpg, dq, offs,
                                            gr * rpad + ir * MR, slot + seg[j * 3 * NR + 1]);
                                } else {
                                    PackedGemm.tileStore(a, (gr * panels + ir) * MR * kpg, bp, j * kpg * NR, kpg, c,
                                            j * MR * NR, NR);
                                }
                            }
                            // block by block within a row: rows (c, kh, kw) and (c, kh, kw + s) overlap one float apart
                            // in the planes, so the adds back to back go to different blocks
                            for (int i = 0; i < rows; i++) {
                                int row = slot + offs[gr * rpad + ir * MR + i];
                                for (int j = 0; j < nb; j++) {
                                    int from = (j * MR + i) * NR;
                                    if (fused && rows == MR && nsegs[j] == 0) {
                                        continue; // added by tileAdd
                                    }
                                    if (nsegs[j] == 0) {
                                        addRow(c, from, dq, row + seg[j * 3 * NR + 1]);
                                    } else {
                                        for (int sg = 0; sg < nsegs[j]; sg++) {
                                            int e = j * 3 * NR + 3 * sg;
                                            addInto(c, from + seg[e], dq, row + seg[e + 1], seg[e + 2]);
                                        }
                                    }
                                }
                            }
                        }
                    }
                });
            }
            int unfills = g.cIn() * pl.phases;
            tasks.run(images * unfills, t -> unfill(g, pl, dq, t / unfills * pl.floats, dx, firstImage + t / unfills,
                    t % unfills / pl.phases, t % pl.phases));
        }
    }

    /**
     * Whether backward-data of {@code g} adds its whole tiles into the planes straight from the registers: with its rows
     * in the order (c, kd, kw, kh), no two rows of one tile overlap in the planes (true where a plane row holds at least
     * a tile row and a kernel's columns of one phase fit in no tile: the 7x7 stride-2 stem at any useful size).
     */
    static boolean addsFromRegisters(ConvGeometry g) {
        int rpad = roundUp(g.cInPerGroup() * g.kernelVolume(), MR);
        int[] offs = new int[g.groups() * rpad];
        rowOffsets(g, new Planes(g), rowsByColumn(g), offs, rpad);
        return tilesApart(offs, g.groups(), g.cInPerGroup() * g.kernelVolume(), rpad);
    }

    /** The reduction rows c * kernelVolume + tap of a group in the order (c, kd, kw, kh): kh fastest. */
    private static int[] rowsByColumn(ConvGeometry g) {
        int[] k = g.k();
        int kv = g.kernelVolume();
        int[] order = new int[g.cInPerGroup() * kv];
        int i = 0;
        for (int c = 0; c < g.cInPerGroup(); c++) {
            for (int kd = 0; kd < k[0]; kd++) {
                for (int kw = 0; kw < k[2]; kw++) {
                    for (int kh = 0; kh < k[1]; kh++) {
                        order[i++] = c * kv + (kd * k[1] + kh) * k[2] + kw;
                    }
                }
            }
        }
        return order;
    }

    /** offs[gr * rpad + r] = where row order[r] of group gr starts in the planes. */
    private static void rowOffsets(ConvGeometry g, Planes pl, int[] order, int[] offs, int rpad) {
        int cpg = g.cInPerGroup();
        int kv = g.kernelVolume();
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int r = 0; r < order.length; r++) {
                offs[gr * rpad + r] = pl.rowOffset(gr * cpg + order[r] / kv, order[r] % kv);
            }
        }
    }

    /** Whether no two rows of one MR-row tile start less than NR floats apart (their runs of NR do not overlap). */
    private static boolean tilesApart(int[] offs, int groups, int kr, int rpad) {
        for (int gr = 0; gr < groups; gr++) {
            for (int r0 = 0; r0 < kr; r0 += MR) {
                for (int i = r0; i < Math.min(kr, r0 + MR); i++) {
                    for (int j = i + 1; j < Math.min(kr, r0 + MR); j++) {
                        if (Math.abs(offs[gr * rpad + i] - offs[gr * rpad + j]) < NR) {
                            return false;
                        }
                    }
                }
            }
        }
        return true;
    }

    // The vector loops live in small methods of their own, not in the passes' large task lambdas: with the gather and the
    // copies inline, backward-filter at times ran at a quarter of its speed for a whole JVM (C2 leaving Vector API calls
    // uninlined in a method that large is the likely cause); not seen since, in 8 JVMs.

    /** Pieces [i0, i1) of a position's col^T row, 8 lanes each: bp[row + dst[i] ..] = xp[base + src[i] ..]. */
    private static void copyPieces8(float[] xp, int base, int[] src, int[] dst, int i0, int i1, float[] bp, int row) {
        for (int i = i0; i < i1; i++) {
            FloatVector.fromArray(FloatVector.SPECIES_256, xp, base + src[i]).intoArray(bp, row + dst[i]);
        }
    }

    /** {@link #copyPieces8} with vectors of the preferred width. */
    private static void copyPieces(float[] xp, int base, int[] src, int[] dst, int i0, int i1, float[] bp, int row) {
        for (int i = i0; i < i1; i++) {
            FloatVector.fromArray(S, xp, base + src[i]).intoArray(bp, row + dst[i]);
        }
    }

    /**
     * An A panel of backward-filter: ap[aOff + k * MR + i] = dy[at + map[i] + k] for k < kc, by gathers of
     * {@link #PER_GATHER} positions; returns how many positions it packed (the rest are left to the caller).
     */
    private static int gatherPanel(float[] dy, int at, int[] map, int kc, float[] ap, int aOff) {
        int k = 0;
        for (; k + PER_GATHER <= kc; k += PER_GATHER) {
            FloatVector.fromArray(S, dy, at + k, map, 0).intoArray(ap, aOff + k * MR);
        }
        return k;
    }

    /** bp[to .. to + NR) = dy[from .. from + NR). */
    private static void copyRow(float[] dy, int from, float[] bp, int to) {
        FloatVector.fromArray(S, dy, from).intoArray(bp, to);
        FloatVector.fromArray(S, dy, from + L).intoArray(bp, to + L);
    }

    /** dq[d .. d + NR) += c[from .. from + NR). */
    private static void addRow(float[] c, int from, float[] dq, int d) {
        FloatVector.fromArray(S, dq, d).add(FloatVector.fromArray(S, c, from)).intoArray(dq, d);
        FloatVector.fromArray(S, dq, d + L).add(FloatVector.fromArray(S, c, from + L)).intoArray(dq, d + L);
    }

    /** dst[d .. d + len) += src[s .. s + len), whole vectors and a masked one at the end. */
    private static void addInto(float[] src, int s, float[] dst, int d, int len) {
        int j = 0;
        for (; j + L <= len; j += L) {
            FloatVector.fromArray(S, dst, d + j).add(FloatVector.fromArray(S, src, s + j)).intoArray(dst, d + j);
        }
        if (j < len) {
            VectorMask<Float> m = S.indexInRange(j, len);
            FloatVector.fromArray(S, dst, d + j, m).add(FloatVector.fromArray(S, src, s + j, m)).intoArray(dst, d + j, m);
        }
    }

    /**
     * The adjoint of {@link Planes#fill} for one channel and phase: dx gets the planes' elements that are input
     * positions, and those elements are cleared for the next image (the padding is never read).
     */
    private static void unfill(ConvGeometry g, Planes pl, float[] part, int at, float[] dx, int n, int c, int phase) {
        int[] s = g.s();
        int[] pad = g.pad();
        int[] in = g.in();
        int pw = phase % s[2];
        int ph = phase / s[2] % s[1];
        int pd = phase / s[2] / s[1];
        int dst = (n * g.cIn() + c) * g.inSpatial();
        int plane = at + (c * pl.phases + phase) * pl.planeQ;
        int lo = Math.min(pl.q2, Math.max(0, Math.ceilDiv(pad[2] - pw, s[2])));
        int hi = Math.max(lo, Math.min(pl.q2, Math.floorDiv(in[2] - 1 + pad[2] - pw, s[2]) + 1));
        for (int zd = 0; zd < pl.q0; zd++) {
            int id = zd * s[0] + pd - pad[0];
            for (int zh = 0; zh < pl.q1; zh++) {
                int ih = zh * s[1] + ph - pad[1];
                if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || lo >= hi) {
                    continue;
                }
                int row = plane + (zd * pl.q1 + zh) * pl.q2;
                int xr = dst + (id * in[1] + ih) * in[2] + pw - pad[2];
                for (int zw = lo; zw < hi; zw++) {
                    dx[xr + zw * s[2]] = part[row + zw];
                }
                java.util.Arrays.fill(part, row + lo, row + hi, 0f);
            }
        }
    }
}
