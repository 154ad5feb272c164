package dev.crashlab.conv;

import static dev.crashlab.conv.PackedGemm.L;
import static dev.crashlab.conv.PackedGemm.MR;
import static dev.crashlab.conv.PackedGemm.NR;
import static dev.crashlab.conv.PackedGemm.S;

import jdk.incubator.vector.FloatVector;

/**
 * The CPU backend's convolutions without an im2col gather: each image's input is copied once into a zero-padded,
 * stride-phase-split form in which every row of the im2col matrix, (channel, tap) seen over a run of output
 * positions, is a contiguous slice. Forward copies a band of output rows at a time ({@link #bandForward}) and packs a
 * panel per block of positions and chunk of the reduction from it: with unit strides one window per channel whose
 * taps the tile reads at their offsets ({@link PackedGemm#tileAt}), otherwise the slices themselves
 * ({@link PackedGemm#packRows}, two vector moves per row, no index arithmetic); the filter gradient's micro-kernel
 * reads them in place ({@link PackedGemm#tileCols}).
 *
 * <p>NOTE: the input of channel c is stored as {@code s_d x s_h x s_w} phase planes (one per stride phase), each
 * {@code Dq x Hq x Wq}; input element (id, ih, iw) of the padded input sits in phase (id % s_d, ih % s_h, iw % s_w)
 * at (id / s_d, ih / s_h, iw / s_w). Output positions are numbered on a grid {@code oh * Wq + ow} per depth slice,
 * so output position (od, oh, ow) seen through tap (kd, kh, kw) reads the plane at a fixed offset from the grid
 * index: {@link Planes#offset}. The grid has {@code Wq - Wo} columns per row that are no output position (for a
 * 3x3 stride-1 layer on 56 x 56, 2 of 58); the forward pass computes and drops them, the filter gradient reads
 * them against zeros. Forward: y = w x col, 8 output channels x 32 positions per tile (reading the rows in place,
 * with an offset per row, ran at two thirds of the packed panel's speed on the 7x7 stride-2 layer); backward-data with unit
 * strides: the forward pass of the flipped, transposed filter over the padded output gradient; backward-filter:
 * dw^T = col x dy^T, 8 (channel, tap) rows x 32 output channels per tile, each task transposing its own chunks of
 * dy ({@link #filterChunk} positions) right before every row panel goes past them.
 */
final class ShiftConv {

    /**
     * Most bytes of one backward-filter chunk of dy^T (all of a group's column panels): it stays in L2 while every row
     * panel goes past it. Chunks of 128 positions that stayed in L1 ran 10 % slower on ResNet-50's 3x3 and 1x1 layers
     * than chunks as long as a split's rows (about 800 positions there): x's rows are then read in runs that long.
     */
    static final int CHUNK_BYTES = 512 * 1024;
    /** Backward-filter tasks per thread at least: splits of the grid's rows, each with accumulators of its own. */
    static final int FILTER_TASKS_PER_THREAD = 2;

    /** Grid positions per chunk of backward-filter for {@code npad} output channels (whole panels): 128 to 2048. */
    static int filterChunk(int npad) {
        return Math.max(128, Math.min(2048, CHUNK_BYTES / 4 / Math.max(1, npad)));
    }

    /**
     * Floats of packed B rows of one block in forward (32 KiB) where the whole reduction fits: they stay in L1 while
     * the A panels stream past.
     */
    static final int PACKED_FLOATS = 8192;
    /**
     * Reduction rows per packed chunk in forward where the whole reduction does not fit {@link #PACKED_FLOATS}: 128
     * rows (16 KiB of B) ran 6-10 % faster than 64 on the 3x3 layer (half the loads and stores of C per product).
     */
    static final int KF = 128;

    /** Reduction rows per packed B chunk of a forward pass with {@code kr} reduction rows. */
    static int chunkRows(int kr) {
        return kr * NR <= PACKED_FLOATS ? kr : KF;
    }

    /** Blocks of {@code NR} grid positions per forward task: as many as fill {@link #PACKED_FLOATS} with one chunk each (at most 4). */
    static int blocksPerTask(int kr) {
        return Math.max(1, Math.min(4, PACKED_FLOATS / (chunkRows(kr) * NR)));
    }

    private ShiftConv() {}

    /**
     * Floats of padded, phase-split copies (or dx planes) held for a round of images, here and in {@link FewChannelConv}:
     * the copies of a round are filled in one pool run and its products computed in another, instead of two runs per
     * image (each run costs tens of microseconds of CPU; a batch-4 pass of a ResNet layer takes a few milliseconds).
     */
    static final int ROUND_FLOATS = 1 << 20;

    /**
     * Scratch for {@code images} slots of {@code slot} floats whose first {@code written} floats the pass writes whole
     * before reading them (padded copies): the array as the last pass left it, only each slot's tail cleared.
     */
    static float[] slots(GemmConv.Tasks tasks, int images, int slot, int written) {
        float[] a = tasks.allocUnset(images * slot);
        for (int i = 0; i < images; i++) {
            java.util.Arrays.fill(a, i * slot + written, (i + 1) * slot, 0f);
        }
        return a;
    }

    /** Images per round where one image's copy takes {@code floats}: as many as fit {@link #ROUND_FLOATS}, at least one. */
    static int imagesPerRound(ConvGeometry g, long floats) {
        return (int) Math.max(1, Math.min(g.n(), ROUND_FLOATS / floats));
    }

    /**
     * The grid of the padded, stride-phase-split planes of {@code g}'s input: positions per phase along depth, height and
     * width (each long enough for the padded input and for every output's taps), and the number of phases.
     */
    static int[] planeGrid(ConvGeometry g) {
        int[] q = new int[4];
        int ph = 1;
        for (int d = 0; d < 3; d++) {
            int ext = Math.max(g.pad()[d] + g.in()[d], (g.out()[d] - 1) * g.s()[d] + g.dil()[d] * (g.k()[d] - 1) + 1);
            q[d] = Math.ceilDiv(ext, g.s()[d]);
            ph *= g.s()[d];
        }
        q[3] = ph;
        return q;
    }


    /** The padded, phase-split copy of one image's input that rows are read from. */
    static final class Planes {
        final int q0;
        final int q1;
        final int q2;
        final int phases;
        final int planeQ;
        final int floats;
        private final ConvGeometry g;

        Planes(ConvGeometry g, int channels) {
            this(g, channels, ShiftConv.planeGrid(g)[0], ShiftConv.planeGrid(g)[1]);
        }

        /**
         * Planes of {@code channels} channels that hold only {@code depthRows} x {@code rows} positions of each phase's
         * plane (a band of the whole grid's depth slices and rows, {@link #fill(float[], int, int, int, int, int, int, int, int, float[])}),
         * whole rows wide.
         */
        Planes(ConvGeometry g, int channels, int depthRows, int rows) {
            this.g = g;
            int[] q = ShiftConv.planeGrid(g);
            q0 = depthRows;
            q1 = rows;
            q2 = q[2];
            phases = q[3];
            planeQ = q0 * q1 * q2;
            // reads for grid positions past the last output row run at most a plane row plus two tiles past the end
            floats = Math.toIntExact((long) channels * phases * planeQ + (long) q1 * q2 + 2L * NR);
        }

        /**
         * Scratch for the planes of {@code images} images, {@link #floats} apart ({@link #slots}: {@link #fill} writes each
         * image's planes whole; the tail after them is read by grid positions past the last output row, and multiplied
         * by zeros in backward-filter, where a NaN left there would spread).
         */
        float[] alloc(int images, GemmConv.Tasks tasks) {
            return slots(tasks, images, floats, floats - (q1 * q2 + 2 * NR));
        }

        /** Where row (channel c, tap) starts, relative to grid position 0 of depth slice 0. */
        int offset(int c, int tap) {
            int[] k = g.k();
            int[] s = g.s();
            int kw = tap % k[2];
            int kh = tap / k[2] % k[1];
            int kd = tap / k[2] / k[1];
            int ed = kd * g.dil()[0];
            int eh = kh * g.dil()[1];
            int ew = kw * g.dil()[2];
            int phase = ((ed % s[0]) * s[1] + eh % s[1]) * s[2] + ew % s[2];
            return (c * phases + phase) * planeQ + ((ed / s[0]) * q1 + eh / s[1]) * q2 + ew / s[2];
        }

        /** Offsets of the rows (c, tap) of group {@code gr}, padded to {@code rows} by repeating the last one. */
        int[] offsets(int gr, int cpg, int rows, GemmConv.Tasks tasks) {
            int kv = g.kernelVolume();
            int kr = cpg * kv;
            int[] o = tasks.allocInts(Math.max(rows, kr));
            for (int r = 0; r < o.length; r++) {
                int rr = Math.min(r, kr - 1);
                o[r] = offset(gr * cpg + rr / kv, rr % kv);
            }
            return o;
        }

        /**
         * Writes stride phase {@code phase} of channel c of image n of {@code x} (channels {@code cAll} per image) into
         * {@code dst}, zeros around it. One task per (channel, phase): the 7x7 stride-2 layer's 3 channels as 3 tasks
         * left one of two threads idle for a third of the copy.
         */
        void fill(float[] x, int n, int cAll, int c, int phase, float[] dst) {
            fill(x, n, cAll, c, phase, dst, 0);
        }

        /** As {@link #fill(float[], int, int, int, int, float[])}, into planes that start at {@code dst[at]}. */
        void fill(float[] x, int n, int cAll, int c, int phase, float[] dst, int at) {
            fill(x, n, cAll, c, c, phase, 0, 0, q1, dst, at);
        }

        /**
         * Writes the band of stride phase {@code phase} of channel {@code c} of image n of {@code x} that starts at depth
         * position {@code zd0} and row {@code zh0} of the whole planes into this band's planes of channel {@code slot},
         * its first {@code rows} rows (of every depth row it holds), zeros around the input.
         */
        void fill(float[] x, int n, int cAll, int c, int slot, int phase, int zd0, int zh0, int rows, float[] dst) {
            fill(x, n, cAll, c, slot, phase, zd0, zh0, rows, dst, 0);
        }

        private void fill(float[] x, int n, int cAll, int c, int slot, int phase, int zd0, int zh0, int rows,
                float[] dst, int at) {
            int[] s = g.s();
            int[] pad = g.pad();
            int[] in = g.in();
            int inPlane = in[0] * in[1] * in[2];
            int src = (n * cAll + c) * inPlane;
            int pw = phase % s[2];
            int ph = phase / s[2] % s[1];
            int pd = phase / s[2] / s[1];
            int plane = at + (slot * phases + (pd * s[1] + ph) * s[2] + pw) * planeQ;
            // columns zw whose input column zw * s + pw - pad lies in [0, in)
            int lo = Math.min(q2, Math.max(0, Math.ceilDiv(pad[2] - pw, s[2])));
            int hi = Math.max(lo, Math.min(q2, Math.floorDiv(in[2] - 1 + pad[2] - pw, s[2]) + 1));
            for (int zd = 0; zd < q0; zd++) {
                int id = (zd0 + zd) * s[0] + pd - pad[0];
                for (int zh = 0; zh < rows; zh++) {
                    int ih = (zh0 + zh) * s[1] + ph - pad[1];
                    int row = plane + (zd * q1 + zh) * q2;
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || lo >= hi) {
                        java.util.Arrays.fill(dst, row, row + q2, 0f);
                        continue;
                    }
                    java.util.Arrays.fill(dst, row, row + lo, 0f);
                    int xr = src + (id * in[1] + ih) * in[2] + pw - pad[2];
                    if (s[2] == 1) {
                        System.arraycopy(x, xr + lo, dst, row + lo, hi - lo);
                    } else {
                        for (int zw = lo; zw < hi; zw++) {
                            dst[row + zw] = x[xr + zw * s[2]];
                        }
                    }
                    java.util.Arrays.fill(dst, row + hi, row + q2, 0f);
                }
            }
        }

        /**
         * The adjoint of {@link #fill} over all phases: channel c of image n of {@code dx} gets the sum over {@code parts} of its
         * elements inside the padding, and {@code parts} are zeroed there for the next image (elements in the
         * padding are never read and stay as they are).
         */
        void unfill(Iterable<float[]> parts, float[] dx, int n, int cAll, int c) {
            int[] s = g.s();
            int[] pad = g.pad();
            int[] in = g.in();
            int inPlane = in[0] * in[1] * in[2];
            int dst = (n * cAll + c) * inPlane;
            for (int pd = 0; pd < s[0]; pd++) {
                for (int ph = 0; ph < s[1]; ph++) {
                    for (int pw = 0; pw < s[2]; pw++) {
                        int plane = (c * phases + (pd * s[1] + ph) * s[2] + pw) * planeQ;
                        int lo = Math.min(q2, Math.max(0, Math.ceilDiv(pad[2] - pw, s[2])));
                        int hi = Math.max(lo, Math.min(q2, Math.floorDiv(in[2] - 1 + pad[2] - pw, s[2]) + 1));
                        for (int zd = 0; zd < q0; zd++) {
                            int id = zd * s[0] + pd - pad[0];
                            for (int zh = 0; zh < q1; zh++) {
                                int ih = zh * s[1] + ph - pad[1];
                                if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || lo >= hi) {
                                    continue;
                                }
                                int row = plane + (zd * q1 + zh) * q2;
                                int xr = dst + (id * in[1] + ih) * in[2] + pw - pad[2];
                                for (float[] part : parts) {
                                    for (int zw = lo; zw < hi; zw++) {
                                        dx[xr + zw * s[2]] += part[row + zw];
                                    }
                                    java.util.Arrays.fill(part, row + lo, row + hi, 0f);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /** Scratch floats of a forward pass (also backward-data through it): planes, packed filter, offsets, tiles. */
    static long forwardScratchFloats(ConvGeometry g, int threads) {
        int kr = g.cInPerGroup() * g.kernelVolume();
        if (forwardDirect(g, new Planes(g, g.cIn()))) {
            // row offsets per group, the packed filter; per thread a packed chunk and a block's tiles
            return (long) g.groups() * kr + (long) g.groups() * GemmConv.roundUp(g.cOutPerGroup(), MR) * kr
                    + (long) (threads + 1) * (chunkRows(kr) * NR + GemmConv.roundUp(g.cOutPerGroup(), MR) * NR);
        }
        // the rows' or the windows' taps' offsets (at most kr), the packed filter; per thread a band's planes, a packed
        // chunk and a block's tiles
        Planes band = band(g, bandRows(g, threads));
        return kr + (long) g.groups() * GemmConv.roundUp(g.cOutPerGroup(), MR) * kr
                + (long) (threads + 1) * (band.floats + bandPackedFloats(g, band) + GemmConv.roundUp(g.cOutPerGroup(), MR) * NR);
    }

    /** Scratch floats of a backward-filter pass: a round's planes, per-thread dy^T chunks, accumulators, offsets. */
    static long filterScratchFloats(ConvGeometry g, int threads) {
        int kr = g.cInPerGroup() * g.kernelVolume();
        int rows = GemmConv.roundUp(kr, MR);
        int npad = GemmConv.roundUp(g.cOutPerGroup(), NR);
        Planes pl = new Planes(g, g.cIn());
        return (filterDirect(g, pl) ? 0 : (long) imagesPerRound(g, pl.floats) * pl.floats) + (long) (threads + 1) * npad * filterChunk(npad)
                + (long) filterSplits(g, threads) * g.groups() * rows * npad + (long) g.groups() * rows;
    }

    /** Whether backward-data of {@code g} runs here: unit strides and padding no larger than the dilated kernel. */
    static boolean backwardDataApplies(ConvGeometry g) {
        for (int d = 0; d < 3; d++) {
            if (g.s()[d] != 1 || g.pad()[d] > g.dil()[d] * (g.k()[d] - 1)) {
                return false;
            }
        }
        return true;
    }

    /** The forward convolution whose output is the input gradient of {@code g} (unit strides only). */
    static ConvGeometry backwardDataGeometry(ConvGeometry g) {
        int[] pad = new int[3];
        for (int d = 0; d < 3; d++) {
            pad[d] = g.dil()[d] * (g.k()[d] - 1) - g.pad()[d];
        }
        return new ConvGeometry(g.n(), g.cOut(), g.out(), g.cIn(), g.in(), g.k(), g.s(), pad, g.dil(), g.groups());
    }

    // ---------------------------------------------------------------- forward

    /** y = conv(x, w) for the plain convolution {@code g}; every element of y is written (it may hold anything). */
    static void forward(ConvGeometry g, float[] x, float[] w, float[] y, GemmConv.Tasks tasks) {
        Planes pl = new Planes(g, g.cIn());
        if (forwardDirect(g, pl)) {
            directForward(g, x, w, y, tasks, pl);
        } else {
            bandForward(g, x, w, y, tasks);
        }
    }

    /**
     * Whether forward reads the rows from x itself and adds its tiles straight into y: the planes would be a plain
     * copy of x (1x1 kernels: unit strides, no padding) and the grid is the output plane, in whole tiles.
     */
    static boolean forwardDirect(ConvGeometry g, Planes pl) {
        return pl.phases == 1 && pl.planeQ == g.inSpatial() && pl.q2 == g.in()[2] && pl.q1 == g.in()[1]
                && g.inSpatial() % NR == 0 && g.kernelVolume() == 1 && g.out()[0] * pl.q1 * pl.q2 == g.inSpatial();
    }

    /**
     * Floats of the padded planes of one task of {@link #bandForward} at most, where one output row's planes fit: 320
     * KiB, which stay in L2 beside the packed filter (147 KiB for ResNet-50's 3x3 layers).
     */
    static final int BAND_FLOATS = 80 * 1024;

    /**
     * Output rows per task of {@link #bandForward}: at most as many as keep the band's planes within
     * {@link #BAND_FLOATS} and leave 4 tasks per thread; of those from half that many up, the one whose bands take the
     * fewest blocks of {@code NR} grid positions (a band's last block is cut by its end), the most rows on a tie. On
     * ResNet-50's 56 x 56 layers (grid rows 58 wide) that is 16: 102 blocks in 4 bands, against 104 for 15.
     */
    static int bandRows(ConvGeometry g, int threads) {
        int[] q = planeGrid(g);
        long perRow = (long) g.cInPerGroup() * q[3] * depthExtent(g) * q[2];
        int rows = g.out()[1];
        int most = (int) Math.max(1, Math.min(rows, BAND_FLOATS / perRow - (rowExtent(g) - 1)));
        long others = (long) g.n() * g.groups() * g.out()[0];
        long bands = Math.ceilDiv(4L * threads, others);
        if (bands > 1) {
            most = Math.min(most, Math.max(1, Math.ceilDiv(rows, (int) Math.min(rows, bands))));
        }
        int best = most;
        long fewest = Long.MAX_VALUE;
        for (int h = most; h >= Math.max(1, most / 2); h--) {
            long blocks = (long) (rows / h) * Math.ceilDiv((long) h * q[2], NR)
                    + Math.ceilDiv((long) (rows % h) * q[2], NR);
            if (blocks < fewest) {
                fewest = blocks;
                best = h;
            }
        }
        return best;
    }

    /** Plane positions along depth that one output depth slice's taps read, in one phase. */
    static int depthExtent(ConvGeometry g) {
        return g.dil()[0] * (g.k()[0] - 1) / g.s()[0] + 1;
    }

    /** Plane rows that one output row's taps read, in one phase. */
    static int rowExtent(ConvGeometry g) {
        return g.dil()[1] * (g.k()[1] - 1) / g.s()[1] + 1;
    }

    /** The planes of one task of {@link #bandForward}: a group's channels, a depth slice's taps, {@code h} output rows. */
    static Planes band(ConvGeometry g, int h) {
        return new Planes(g, g.cInPerGroup(), depthExtent(g), h + rowExtent(g) - 1);
    }

    /**
     * Floats of the window of one channel that {@link #bandForward} packs per block where every stride is 1: the
     * block's {@code NR} grid positions and as far past them as the channel's last tap reaches, in whole vectors; 0
     * where the layer has strides (its taps read different phase planes) or the window is longer than the
     * {@code kv x NR} floats that packing the rows one by one copies.
     */
    static int windowFloats(ConvGeometry g, Planes band) {
        if (band.phases != 1) {
            return 0;
        }
        int reach = 0;
        for (int tap = 0; tap < g.kernelVolume(); tap++) {
            reach = Math.max(reach, band.offset(0, tap));
        }
        int w = GemmConv.roundUp(NR + reach, L);
        return w <= g.kernelVolume() * NR ? w : 0;
    }

    /** Channels per packed chunk of {@link #bandForward}'s windows of {@code w} floats: chunks as even as can be. */
    static int windowChannels(ConvGeometry g, int w) {
        int most = Math.max(1, KF * NR / w);
        int chunks = Math.ceilDiv(g.cInPerGroup(), most);
        return Math.ceilDiv(g.cInPerGroup(), chunks);
    }

    /** Floats of {@link #bandForward}'s packed B per thread. */
    static int bandPackedFloats(ConvGeometry g, Planes band) {
        int w = windowFloats(g, band);
        int kr = g.cInPerGroup() * g.kernelVolume();
        return w == 0 ? chunkRows(kr) * NR : windowChannels(g, w) * w;
    }

    /**
     * Forward where the rows are read from padded copies: one task per (image, group, output depth slice, band of
     * {@link #bandRows} output rows), which copies the band's padded planes of its group's channels ({@link #band}) and
     * computes the band's outputs from them, block by block. The copy is written and read by the same core while it is
     * in L2; x is read in runs of a band's rows per channel.
     */
    private static void bandForward(ConvGeometry g, float[] x, float[] w, float[] y, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kr = cpg * g.kernelVolume();
        int mpad = GemmConv.roundUp(kpg, MR);
        int panels = mpad / MR;
        int[] out = g.out();
        int outSpatial = g.outSpatial();
        float[] a = GemmConv.packFilter(g, w, tasks);
        int h = bandRows(g, tasks.threads());
        Planes band = band(g, h);
        int q2 = band.q2;
        int hExt = rowExtent(g);
        int bands = Math.ceilDiv(out[1], h);
        int perImage = g.groups() * out[0] * bands;
        int kf = chunkRows(kr);
        // unit strides: each channel's window of the block is packed as one run, and the tiles read its taps' rows
        // at their offsets in it (bOffs), instead of packing kv rows per channel
        int win = windowFloats(g, band);
        int kv = g.kernelVolume();
        int cpc = win == 0 ? 0 : windowChannels(g, win);
        int[] bOffs = win == 0 ? null : tasks.allocInts(cpc * kv);
        for (int k = 0; k < cpc * kv; k++) {
            bOffs[k] = k / kv * win + band.offset(0, k % kv);
        }
        // otherwise the rows (c, tap) are packed one by one from their offsets in the band
        int[] o = win == 0 ? band.offsets(0, cpg, kr, tasks) : null;
        int packedFloats = bandPackedFloats(g, band);
        ThreadLocal<float[]> planes = ThreadLocal.withInitial(() -> tasks.alloc(band.floats));
        ThreadLocal<float[]> packed = ThreadLocal.withInitial(() -> tasks.alloc(packedFloats));
        ThreadLocal<float[]> tiles = ThreadLocal.withInitial(() -> tasks.alloc(mpad * NR));
        tasks.run(g.n() * perImage, t -> {
            int image = t / perImage;
            int b = t % bands;
            int od = t / bands % out[0];
            int gr = t % perImage / bands / out[0];
            int oh0 = b * h;
            int rows = Math.min(h, out[1] - oh0);
            float[] xb = planes.get();
            float[] bp = packed.get();
            float[] c = tiles.get();
            for (int ch = 0; ch < cpg; ch++) {
                for (int phase = 0; phase < band.phases; phase++) {
                    band.fill(x, image, g.cIn(), gr * cpg + ch, ch, phase, od, oh0, rows + hExt - 1, xb);
                }
            }
            int aGroup = gr * mpad * kr;
            int yBand = (image * g.cOut() + gr * kpg) * outSpatial + (od * out[1] + oh0) * out[2];
            int blocks = Math.ceilDiv(rows * q2, NR);
            // block by block: the block's B rows of one reduction chunk are packed once (in L1) and serve every A
            // panel; the block's tiles are finished (and copied into y) before the next block starts
            for (int blk = 0; blk < blocks; blk++) {
                int g0 = blk * NR;
                if (win != 0) {
                    for (int c0 = 0; c0 < cpg; c0 += cpc) {
                        int cc = Math.min(cpc, cpg - c0);
                        for (int ch = 0; ch < cc; ch++) {
                            int from = (c0 + ch) * band.planeQ + g0;
                            for (int v = 0; v < win; v += L) {
                                FloatVector.fromArray(S, xb, from + v).intoArray(bp, ch * win + v);
                            }
                        }
                        int k0 = c0 * kv;
                        for (int ir = 0; ir < panels; ir++) {
                            int aOff = aGroup + ir * MR * kr + k0 * MR;
                            if (k0 == 0) {
                                PackedGemm.tileStoreAt(a, aOff, bp, bOffs, 0, cc * kv, c, ir * MR * NR, NR);
                            } else {
                                PackedGemm.tileAt(a, aOff, bp, bOffs, 0, cc * kv, c, ir * MR * NR, NR);
                            }
                        }
                    }
                } else {
                    for (int k0 = 0; k0 < kr; k0 += kf) {
                        int kc = Math.min(kf, kr - k0);
                        PackedGemm.packRows(xb, o, k0, g0, kc, bp, 0);
                        for (int ir = 0; ir < panels; ir++) {
                            int aOff = aGroup + ir * MR * kr + k0 * MR;
                            if (k0 == 0) {
                                // the first chunk stores its sums: c needs no zeroing
                                PackedGemm.tileStore(a, aOff, bp, 0, kc, c, ir * MR * NR, NR);
                            } else {
                                PackedGemm.tile(a, aOff, bp, 0, kc, c, ir * MR * NR, NR);
                            }
                        }
                    }
                }
                copyOut(c, g0, false, kpg, q2, rows, out[2], y, yBand, outSpatial);
            }
        });
    }

    /** Forward of a 1x1 layer ({@link #forwardDirect}): the rows read from x, whole panels added straight into y. */
    private static void directForward(ConvGeometry g, float[] x, float[] w, float[] y, GemmConv.Tasks tasks, Planes pl) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kr = cpg;
        int mpad = GemmConv.roundUp(kpg, MR);
        int panels = mpad / MR;
        int[] out = g.out();
        int outSpatial = g.outSpatial();
        float[] a = GemmConv.packFilter(g, w, tasks);
        int[][] offs = new int[g.groups()][];
        for (int gr = 0; gr < g.groups(); gr++) {
            offs[gr] = pl.offsets(gr, cpg, kr, tasks);
        }
        int q2 = pl.q2;
        int slice = pl.q1 * q2;
        int grid = out[1] * q2;
        int blocks = Math.ceilDiv(grid, NR);
        int bpt = blocksPerTask(kr);
        int perSlice = Math.ceilDiv(blocks, bpt);
        // per thread: one block's B rows of one reduction chunk, packed (kf x NR), and the block's tiles of all panels
        int kf = chunkRows(kr);
        ThreadLocal<float[]> packed = ThreadLocal.withInitial(() -> tasks.alloc(kf * NR));
        ThreadLocal<float[]> tiles = ThreadLocal.withInitial(() -> tasks.alloc(mpad * NR));
        int perImage = g.groups() * out[0] * perSlice;
        tasks.run(g.n() * perImage, t -> {
            int image = t / perImage;
            int imageBase = image * g.cIn() * g.inSpatial();
            int tb = t % perSlice;
            int od = t / perSlice % out[0];
            int gr = t % perImage / perSlice / out[0];
            float[] bp = packed.get();
            float[] c = tiles.get();
            int[] o = offs[gr];
            int aGroup = gr * mpad * kr;
            int yGroup = (image * g.cOut() + gr * kpg) * outSpatial + od * out[1] * out[2];
            int bFirst = tb * bpt;
            int nb = Math.min(blocks, bFirst + bpt) - bFirst;
            for (int i = 0; i < nb; i++) {
                int g0 = (bFirst + i) * NR;
                boolean intoY = g0 + NR <= grid;
                for (int k0 = 0; k0 < kr; k0 += kf) {
                    int kc = Math.min(kf, kr - k0);
                    PackedGemm.packRows(x, o, k0, imageBase + od * slice + g0, kc, bp, 0);
                    for (int ir = 0; ir < panels; ir++) {
                        int aOff = aGroup + ir * MR * kr + k0 * MR;
                        if (intoY && (ir + 1) * MR <= kpg) {
                            // the grid is the output plane: whole panels go straight into y
                            int at = yGroup + ir * MR * outSpatial + g0;
                            if (k0 == 0) {
                                PackedGemm.tileStore(a, aOff, bp, 0, kc, y, at, outSpatial);
                            } else {
                                PackedGemm.tile(a, aOff, bp, 0, kc, y, at, outSpatial);
                            }
                        } else if (k0 == 0) {
                            PackedGemm.tileStore(a, aOff, bp, 0, kc, c, ir * MR * NR, NR);
                        } else {
                            PackedGemm.tile(a, aOff, bp, 0, kc, c, ir * MR * NR, NR);
                        }
                    }
                }
                copyOut(c, g0, intoY, kpg, q2, out[1], out[2], y, yGroup, outSpatial);
            }
        });
    }

    // Copies the rows of a block's tiles in c (grid positions g0..g0+NR, rows q2 wide) that are output positions (in the
    // first `rows` rows, `width` wide) into y, whose rows start at yGroup + m * outSpatial; where the whole panels went
    // straight into y (intoY) only the rows past the last whole panel. Vector by vector of the tile's rows: a vector's
    // lanes that lie in one grid row go to y as one (masked) store, the lanes past that row's end as another (a call of
    // System.arraycopy per run of 16-32 floats took 5-6 % of the 3x3 forward).
    private static void copyOut(float[] c, int g0, boolean intoY, int kpg, int q2, int rows, int width, float[] y,
            int yGroup, int outSpatial) {
        if (q2 < L) {
            copyOutRuns(c, g0, intoY, kpg, q2, rows, width, y, yGroup, outSpatial);
            return;
        }
        for (int v = 0; v < NR; v += L) {
            int oh = (g0 + v) / q2;
            if (oh >= rows) {
                break;
            }
            int ow = (g0 + v) % q2;
            // lanes [0, first) lie in row oh (of which [0, valid) are output columns), lanes [first, ...) in row oh + 1
            int first = Math.min(L, q2 - ow);
            int valid = Math.max(0, Math.min(first, width - ow));
            boolean whole = valid == L;
            boolean next = first < L && oh + 1 < rows;
            jdk.incubator.vector.VectorMask<Float> head = S.indexInRange(0, valid);
            jdk.incubator.vector.VectorMask<Float> tail = S.indexInRange(0, first).not()
                    .and(S.indexInRange(0, first + Math.min(L, width)));
            int at = oh * width + ow;
            int atNext = (oh + 1) * width + ow - q2;
            for (int m = intoY ? kpg / MR * MR : 0; m < kpg; m++) {
                int yPlane = yGroup + m * outSpatial;
                FloatVector t = FloatVector.fromArray(S, c, m * NR + v);
                if (whole) {
                    t.intoArray(y, yPlane + at);
                } else {
                    if (valid > 0) {
                        t.intoArray(y, yPlane + at, head);
                    }
                    if (next) {
                        t.intoArray(y, yPlane + atNext, tail);
                    }
                }
            }
        }
    }

    // copyOut for grid rows narrower than a vector (a vector's lanes may span several rows): run by run of grid
    // columns that are output columns, with System.arraycopy.
    private static void copyOutRuns(float[] c, int g0, boolean intoY, int kpg, int q2, int rows, int width, float[] y,
            int yGroup, int outSpatial) {
        int oh0 = g0 / q2;
        int ow0 = g0 % q2;
        for (int m = intoY ? kpg / MR * MR : 0; m < kpg; m++) {
            int yPlane = yGroup + m * outSpatial;
            int from = m * NR;
            int j = 0;
            int oh = oh0;
            int ow = ow0;
            while (j < NR && oh < rows) {
                int run = Math.min(NR - j, q2 - ow);
                int valid = Math.max(0, Math.min(run, width - ow));
                if (valid > 0) {
                    System.arraycopy(c, from + j, y, yPlane + oh * width + ow, valid);
                }
                j += run;
                ow = 0;
                oh++;
            }
        }
    }

    /**
     * dx = the input gradient of {@code g}; dx must be zero (with unit strides every element is written, so it may
     * hold anything). With unit strides ({@link #backwardDataApplies}) a
     * forward pass of the flipped filter; otherwise {@link #planesBackwardData}.
     */
    static void backwardData(ConvGeometry g, float[] dy, float[] w, float[] dx, GemmConv.Tasks tasks) {
        if (backwardDataApplies(g)) {
            transposedBackwardData(g, dy, w, dx, tasks);
        } else {
            planesBackwardData(g, dy, w, dx, tasks);
        }
    }

    /** Scratch floats of a backward-data pass. */
    static long backwardDataScratchFloats(ConvGeometry g, int threads) {
        if (backwardDataApplies(g)) {
            return (long) g.cOut() * g.cInPerGroup() * g.kernelVolume() + forwardScratchFloats(backwardDataGeometry(g), threads);
        }
        int kr = g.cInPerGroup() * g.kernelVolume();
        int kpg = g.cOutPerGroup();
        Planes pl = new Planes(g, g.cIn());
        long gridPad = GemmConv.roundUp(g.out()[1] * pl.q2, NR);
        return (long) (threads + 1) * pl.floats + (long) g.cOut() * g.out()[0] * gridPad + NR
                + (long) g.groups() * GemmConv.roundUp(kr, MR) * kpg + (long) g.groups() * GemmConv.roundUp(kr, MR)
                + (long) (threads + 1) * (Math.min(kpg, KD) * NR + MR * NR);
    }

    /** Reduction rows (output channels) per packed chunk of {@link #planesBackwardData}. */
    static final int KD = 256;

    /**
     * dx of a strided layer without a col2im scatter: dcol = w^T x dy is computed tile by tile (8 (channel, tap) rows x
     * 32 grid positions) and each tile row is added, as two vectors, into the padded, phase-split planes of dx, where
     * row (c, tap) is the same contiguous slice that forward reads ({@link Planes#offset}); the planes are then copied
     * into dx once per image ({@link Planes#unfill}). dy is laid out on the grid with zeros in the columns that are
     * no output position, so those tiles add zeros. Each thread adds into planes of its own, summed by the copy, so
     * no two threads write one element.
     */
    static void planesBackwardData(ConvGeometry g, float[] dy, float[] w, float[] dx, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int mpad = GemmConv.roundUp(kr, MR);
        int panels = mpad / MR;
        int[] out = g.out();
        int outSpatial = g.outSpatial();
        // A = w^T per group: rows (c, tap), reduction over the group's output channels, a[gr][ir][k][i]
        float[] a = tasks.alloc(g.groups() * mpad * kpg);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int k = 0; k < kpg; k++) {
                int wRow = (gr * kpg + k) * kr;
                for (int r = 0; r < kr; r++) {
                    a[gr * mpad * kpg + r / MR * MR * kpg + k * MR + r % MR] = w[wRow + r];
                }
            }
        }
        Planes pl = new Planes(g, g.cIn());
        int[][] offs = new int[g.groups()][];
        for (int gr = 0; gr < g.groups(); gr++) {
            offs[gr] = pl.offsets(gr, cpg, mpad, tasks);
        }
        int q2 = pl.q2;
        int slice = pl.q1 * q2;
        int grid = out[1] * q2;
        int gridPad = GemmConv.roundUp(grid, NR);
        int blocks = gridPad / NR;
        // dy of one image on the grid, each depth slice padded to whole blocks: dyg[(k * out[0] + od) * gridPad + q]
        int channelLength = out[0] * gridPad;
        float[] dyg = tasks.alloc(g.cOut() * channelLength + NR);
        int[] rowsOfK = new int[kpg];
        for (int k = 0; k < kpg; k++) {
            rowsOfK[k] = k * channelLength;
        }
        int kd = Math.min(kpg, KD);
        java.util.concurrent.ConcurrentLinkedQueue<float[]> parts = new java.util.concurrent.ConcurrentLinkedQueue<>();
        ThreadLocal<float[]> planes = ThreadLocal.withInitial(() -> {
            float[] p = tasks.alloc(pl.floats);
            parts.add(p);
            return p;
        });
        ThreadLocal<float[]> packed = ThreadLocal.withInitial(() -> tasks.alloc(kd * NR));
        ThreadLocal<float[]> tiles = ThreadLocal.withInitial(() -> tasks.alloc(MR * NR));
        int perSlice = Math.ceilDiv(blocks, 4);
        for (int n = 0; n < g.n(); n++) {
            int image = n;
            tasks.run(g.cOut(), k -> {
                for (int od = 0; od < out[0]; od++) {
                    for (int oh = 0; oh < out[1]; oh++) {
                        System.arraycopy(dy, (image * g.cOut() + k) * outSpatial + (od * out[1] + oh) * out[2], dyg,
                                k * channelLength + od * gridPad + oh * q2, out[2]);
                    }
                }
            });
            tasks.run(g.groups() * out[0] * perSlice, t -> {
                int tb = t % perSlice;
                int od = t / perSlice % out[0];
                int gr = t / perSlice / out[0];
                float[] dq = planes.get();
                float[] bp = packed.get();
                float[] c = tiles.get();
                int[] o = offs[gr];
                int dyGroup = gr * kpg * channelLength + od * gridPad;
                int bLast = Math.min(blocks, (tb + 1) * 4);
                for (int b = tb * 4; b < bLast; b++) {
                    int g0 = b * NR;
                    for (int ir = 0; ir < panels; ir++) {
                        for (int k0 = 0; k0 < kpg; k0 += kd) {
                            int kc = Math.min(kd, kpg - k0);
                            if (ir == 0 || kc < kpg) {
                                PackedGemm.packRows(dyg, rowsOfK, k0, dyGroup + g0, kc, bp, 0);
                            }
                            int aOff = gr * mpad * kpg + ir * MR * kpg + k0 * MR;
                            if (k0 == 0) {
                                PackedGemm.tileStore(a, aOff, bp, 0, kc, c, 0, NR);
                            } else {
                                PackedGemm.tile(a, aOff, bp, 0, kc, c, 0, NR);
                            }
                        }
                        int rows = Math.min(MR, kr - ir * MR);
                        PackedGemm.addRows(c, rows, dq, o, ir * MR, od * slice + g0);
                    }
                }
            });
            tasks.run(g.cIn(), ch -> pl.unfill(parts, dx, image, g.cIn(), ch));
        }
    }

    /** dx = the input gradient of {@code g} (unit strides, {@link #backwardDataApplies}): a forward pass. */
    static void transposedBackwardData(ConvGeometry g, float[] dy, float[] w, float[] dx, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        // w'[(gr * cpg + c) * kpg * kv + k * kv + (kv - 1 - tap)] = w[(gr * kpg + k) * cpg * kv + c * kv + tap]
        float[] wt = tasks.alloc(w.length);
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int k = 0; k < kpg; k++) {
                for (int c = 0; c < cpg; c++) {
                    int src = ((gr * kpg + k) * cpg + c) * kv;
                    int dst = ((gr * cpg + c) * kpg + k) * kv + kv - 1;
                    for (int t = 0; t < kv; t++) {
                        wt[dst - t] = w[src + t];
                    }
                }
            }
        }
        forward(backwardDataGeometry(g), dy, wt, dx, tasks);
    }

    // ---------------------------------------------------------------- backward-filter

    /**
     * Splits of the grid's rows that backward-filter computes apart (in accumulators of their own, added at the end in
     * a fixed order, so the result does not depend on which thread ran which split), so that there are at least
     * {@link #FILTER_TASKS_PER_THREAD} tasks per thread.
     */
    static int filterSplits(ConvGeometry g, int threads) {
        int rows = g.out()[0] * g.out()[1];
        return Math.max(1, Math.min(rows, Math.ceilDiv(FILTER_TASKS_PER_THREAD * threads, g.groups())));
    }

    /** Whether backward-filter reads the im2col rows from x itself: the planes would be a plain copy of it. */
    static boolean filterDirect(ConvGeometry g, Planes pl) {
        return pl.phases == 1 && pl.q0 == g.in()[0] && pl.q1 == g.in()[1] && pl.q2 == g.in()[2] && g.kernelVolume() == 1;
    }

    /** dw = the filter gradient of the plain convolution {@code g}; dw is overwritten. */
    static void backwardFilter(ConvGeometry g, float[] x, float[] dy, float[] dw, GemmConv.Tasks tasks) {
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int kv = g.kernelVolume();
        int kr = cpg * kv;
        int rPanels = Math.ceilDiv(kr, MR);
        int npad = GemmConv.roundUp(kpg, NR);
        int jPanels = npad / NR;
        int[] out = g.out();
        int outSpatial = g.outSpatial();
        Planes pl = new Planes(g, g.cIn());
        int q2 = pl.q2;
        int slice = pl.q1 * q2;
        int[][] offs = new int[g.groups()][];
        for (int gr = 0; gr < g.groups(); gr++) {
            offs[gr] = pl.offsets(gr, cpg, rPanels * MR, tasks);
        }
        boolean direct = filterDirect(g, pl);
        int round = direct ? g.n() : imagesPerRound(g, pl.floats);
        float[] xq = direct ? x : pl.alloc(round, tasks);
        int splits = filterSplits(g, tasks.threads());
        int accFloats = g.groups() * rPanels * jPanels * MR * NR;
        float[] acc = tasks.alloc(splits * accFloats);
        // per thread: dy^T of one chunk of kcMax grid positions, all column panels of a group: b[(jr * kcMax + q) * NR + j]
        int kcMax = filterChunk(npad);
        ThreadLocal<float[]> chunks = ThreadLocal.withInitial(() -> tasks.alloc(jPanels * kcMax * NR));
        int outRows = out[0] * out[1];
        // a round of images per pool run (where x is read in place, 1x1 kernels, all of them): each task takes its split
        // of every image of the round in turn
        int fills = g.cIn() * pl.phases;
        for (int n0 = 0; n0 < g.n(); n0 += round) {
            int first = n0;
            int images = Math.min(round, g.n() - n0);
            if (!direct) {
                tasks.run(images * fills, t -> pl.fill(x, first + t / fills, g.cIn(), t % fills / pl.phases,
                        t % pl.phases, xq, t / fills * pl.floats));
            }
            // each task one split of the grid's rows against every row panel, chunk by chunk of kcMax positions: the
            // chunk's dy^T (both column panels, transposed by the task itself, so it is never written out whole) stays
            // in L2 while every (channel, tap) row panel goes past it
            tasks.run(g.groups() * splits, t -> {
                int split = t % splits;
                int gr = t / splits;
                int[] o = offs[gr];
                float[] b = chunks.get();
                int accBase = split * accFloats;
                // this split's output rows (depth slice, row) of the grid
                int r0 = (int) ((long) outRows * split / splits);
                int r1 = (int) ((long) outRows * (split + 1) / splits);
                for (int image = first; image < first + images; image++) {
                    int imageBase = direct ? image * g.cIn() * g.inSpatial() : (image - first) * pl.floats;
                    int dyBase = (image * g.cOut() + gr * kpg) * outSpatial;
                    for (int od = r0 / out[1]; od * out[1] < r1; od++) {
                        int qStart = (Math.max(r0, od * out[1]) - od * out[1]) * q2;
                        int qEnd = (Math.min(r1, (od + 1) * out[1]) - od * out[1]) * q2;
                        for (int q0 = qStart; q0 < qEnd; q0 += kcMax) {
                            int kc = Math.min(kcMax, qEnd - q0);
                            packDyT(dy, dyBase + od * out[1] * out[2], outSpatial, out, q2, q0, kc, kpg, jPanels, kcMax, b);
                            for (int ir = 0; ir < rPanels; ir++) {
                                for (int jr = 0; jr < jPanels; jr++) {
                                    PackedGemm.tileCols(xq, o, ir * MR, imageBase + od * slice + q0, b, jr * kcMax * NR,
                                            kc, acc, accBase + ((gr * rPanels + ir) * jPanels + jr) * MR * NR);
                                }
                            }
                        }
                    }
                }
            });
        }
        // the splits' sums added into the first, in split order (the same result on every run), a slice per task
        if (splits > 1) {
            int part = GemmConv.roundUp(Math.ceilDiv(accFloats, 4 * tasks.threads()), L);
            tasks.run(Math.ceilDiv(accFloats, part), t -> addSplits(acc, accFloats, splits, t * part,
                    Math.min(accFloats, (t + 1) * part)));
        }
        for (int gr = 0; gr < g.groups(); gr++) {
            for (int k = 0; k < kpg; k++) {
                int dwRow = (gr * kpg + k) * kr;
                for (int r = 0; r < kr; r++) {
                    dw[dwRow + r] = acc[((gr * rPanels + r / MR) * jPanels + k / NR) * MR * NR + (r % MR) * NR + k % NR];
                }
            }
        }
    }

    /** acc[i] += acc[sp * accFloats + i] for the splits sp = 1, 2... in turn, i in [from, to). */
    private static void addSplits(float[] acc, int accFloats, int splits, int from, int to) {
        int i = from;
        for (; i + L <= to; i += L) {
            FloatVector v = FloatVector.fromArray(S, acc, i);
            for (int sp = 1; sp < splits; sp++) {
                v = v.add(FloatVector.fromArray(S, acc, sp * accFloats + i));
            }
            v.intoArray(acc, i);
        }
        for (; i < to; i++) {
            float v = acc[i];
            for (int sp = 1; sp < splits; sp++) {
                v += acc[sp * accFloats + i];
            }
            acc[i] = v;
        }
    }

    /**
     * dy^T of grid positions {@code q0 .. q0 + kc} of one depth slice into {@code b[(jr * kcMax + q - q0) * NR + j]}:
     * output channel {@code jr * NR + j} of the group at that position, zero where the position is no output position
     * (grid columns past the output's width) or the channel is past the group's. {@code dyBase} is where the group's
     * first channel's depth slice starts in dy. Channel by channel, so dy is read in runs (a whole image's dy^T gathered
     * L channels per vector took as long: 17 % against 15-16 % of the 1x1 pass).
     */
    static void packDyT(float[] dy, int dyBase, int outSpatial, int[] out, int q2, int q0, int kc, int kpg, int jPanels,
            int kcMax, float[] b) {
        for (int jr = 0; jr < jPanels; jr++) {
            int base = jr * kcMax * NR;
            int cols = Math.min(NR, kpg - jr * NR);
            if (cols < NR) {
                java.util.Arrays.fill(b, base, base + kc * NR, 0f);
            }
            int q = q0;
            while (q < q0 + kc) {
                int oh = q / q2;
                int ow = q % q2;
                int run = Math.min(q0 + kc - q, q2 - ow);
                int valid = oh < out[1] ? Math.max(0, Math.min(run, out[2] - ow)) : 0;
                int at = base + (q - q0) * NR;
                int src = dyBase + jr * NR * outSpatial + oh * out[2] + ow;
                for (int j = 0; j < cols; j++) {
                    int sj = src + j * outSpatial;
                    int aj = at + j;
                    for (int i = 0; i < valid; i++) {
                        b[aj + i * NR] = dy[sj + i];
                    }
                }
                if (cols == NR) {
                    java.util.Arrays.fill(b, at + valid * NR, at + run * NR, 0f);
                }
                q += run;
            }
        }
    }
}
