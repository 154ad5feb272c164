package dev.crashlab.conv;


import java.util.Optional;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Runs convolutions on the CPU in pure Java: the numerical reference for the other backends, and the backend
 * that works everywhere.
 *
 * <p>NOTE: every pass accumulates in float32 (half dtypes round their inputs and outputs to the half type, as
 * a GPU computing in half with float32 accumulation would). Work is split over a private {@link ForkJoinPool}
 * by batch x channel so that no two tasks write the same element; inner loops run along the innermost
 * spatial dimension, contiguous in memory, so the JIT can vectorise them. The memory cap counts the host
 * arrays a pass holds (its inputs, any rounded copies and its output). Scratch arrays are kept from pass to pass
 * ({@link ScratchArrays}), so a pass run again allocates nothing.
 */
public final class CpuConvBackend implements ConvBackend {

    /** Whether this JVM was started with {@code --add-modules jdk.incubator.vector}. */
    static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /** Output channels per group from which the packed products beat the direct loops. */
    static final int GEMM_MIN_CHANNELS = 8;

    /** Output channels per group from which the filter gradient reads its rows in place (32-channel tiles). */
    static final int SHIFT_FILTER_MIN_CHANNELS = 16;

    /**
     * Which loops run the passes: chosen per shape, or one kind forced (for tests that compare them). GEMM: packed
     * products over gathered im2col panels ({@link GemmConv}); SHIFT: products over im2col rows taken from a
     * padded, phase-split copy of the input ({@link ShiftConv}; strided backward-data adds its tiles into such a
     * copy of dx instead of scattering them).
     * FEW: the few-input-channel loops ({@link FewChannelConv}) wherever they can run, as AUTO elsewhere.
     */
    enum Kernels { AUTO, DIRECT, GEMM, SHIFT, FEW }

    /** The loops one pass runs on. */
    enum Impl { DIRECT, PACKED, SHIFT, FEW }

    private final ForkJoinPool pool;
    private final Kernels kernels;
    private final ScratchArrays scratch = new ScratchArrays();
    private long capBytes;

    /** A backend using every available core. */
    public CpuConvBackend() {
        this(Runtime.getRuntime().availableProcessors());
    }

    /** A backend using {@code threads} worker threads. */
    public CpuConvBackend(int threads) {
        this(threads, Kernels.AUTO);
    }

    CpuConvBackend(int threads, Kernels kernels) {
        if ((kernels == Kernels.GEMM || kernels == Kernels.SHIFT || kernels == Kernels.FEW) && !VECTOR_API) {
            throw new IllegalStateException("the packed kernels need --add-modules jdk.incubator.vector");
        }
        this.pool = new ForkJoinPool(Math.max(1, threads));
        this.kernels = kernels;
    }

    /** The pool's tasks for one pass, counting the scratch arrays the pass allocates. */
    private final class PassTasks implements GemmConv.Tasks {
        final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
        final ScratchArrays.Lease lease = scratch.lease();

        @Override
        public void run(int count, java.util.function.IntConsumer task) {
            parallel(count, task);
        }

        @Override
        public int threads() {
            return pool.getParallelism();
        }

        @Override
        public float[] alloc(int n) {
            bytes.addAndGet(4L * n);
            return lease.floats(n);
        }

        @Override
        public float[] allocUnset(int n) {
            bytes.addAndGet(4L * n);
            return lease.unsetFloats(n);
        }

        @Override
        public int[] allocInts(int n) {
            bytes.addAndGet(4L * n);
            return lease.ints(n);
        }
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    @Override
    public String device() {
        return pool.getParallelism() + "-thread CPU (" + System.getProperty("os.arch") + ", Java "
                + Runtime.version().feature() + ")";
    }

    /** Which loops run the passes, for reports: packed products (with the vector width) or direct loops. */
    public String kernelsDescription() {
        boolean packed = kernels != Kernels.DIRECT && VECTOR_API;
        if (!packed) {
            return "direct loops" + (VECTOR_API ? "" : "; the packed kernels need --add-modules jdk.incubator.vector");
        }
        if (kernels == Kernels.GEMM) {
            return GemmConv.describe();
        }
        return GemmConv.describe() + ", im2col rows taken from a padded, phase-split copy of the input (no gather) where the shape allows"
                + (kernels == Kernels.AUTO || kernels == Kernels.FEW ? ", their own loops for layers with at most "
                + FewChannelConv.MAX_CHANNELS + " input channels per group (a network's first layer)" : "")
                + (kernels == Kernels.AUTO ? ", direct loops below " + GEMM_MIN_CHANNELS + " output channels per group"
                : "");
    }

    @Override
    public void memoryCap(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("memory cap must be >= 0: " + bytes);
        }
        this.capBytes = bytes;
    }

    @Override
    public PassResult forward(ConvProblem p, float[] x, float[] w) throws BackendException {
        return forward(p, x, w, null, false);
    }

    @Override
    public PassResult forward(ConvProblem p, float[] x, float[] w, float[] y) throws BackendException {
        return forward(p, x, w, y, true);
    }

    private PassResult forward(ConvProblem p, float[] x, float[] w, float[] y, boolean into) throws BackendException {
        expect("x", x, p.inputElements());
        expect("w", w, p.filterElements());
        if (into) {
            ConvBackend.checkOutput("y", y, p.outputElements());
        }
        ConvGeometry g = ConvGeometry.of(p);
        GemmConv.Pass pass = p.transposed() ? GemmConv.Pass.BACKWARD_DATA : GemmConv.Pass.FORWARD;
        return pass(p, g, pass, "forward output", x, Tensor.INPUT, w, Tensor.FILTER, Tensor.OUTPUT, y);
    }

    @Override
    public PassResult backwardData(ConvProblem p, float[] dy, float[] w) throws BackendException {
        return backwardData(p, dy, w, null, false);
    }

    @Override
    public PassResult backwardData(ConvProblem p, float[] dy, float[] w, float[] dx) throws BackendException {
        return backwardData(p, dy, w, dx, true);
    }

    private PassResult backwardData(ConvProblem p, float[] dy, float[] w, float[] dx, boolean into)
            throws BackendException {
        expect("dy", dy, p.outputElements());
        expect("w", w, p.filterElements());
        if (into) {
            ConvBackend.checkOutput("dx", dx, p.inputElements());
        }
        ConvGeometry g = ConvGeometry.of(p);
        GemmConv.Pass pass = p.transposed() ? GemmConv.Pass.FORWARD : GemmConv.Pass.BACKWARD_DATA;
        return pass(p, g, pass, "backward-data output", dy, Tensor.OUTPUT, w, Tensor.FILTER, Tensor.INPUT, dx);
    }

    @Override
    public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) throws BackendException {
        return backwardFilter(p, x, dy, null, false);
    }

    @Override
    public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy, float[] dw) throws BackendException {
        return backwardFilter(p, x, dy, dw, true);
    }

    private PassResult backwardFilter(ConvProblem p, float[] x, float[] dy, float[] dw, boolean into)
            throws BackendException {
        expect("x", x, p.inputElements());
        expect("dy", dy, p.outputElements());
        if (into) {
            ConvBackend.checkOutput("dw", dw, p.filterElements());
        }
        ConvGeometry g = ConvGeometry.of(p);
        // for a transposed layer the roles swap: its output gradient is the plain convolution's input
        return p.transposed()
                ? pass(p, g, GemmConv.Pass.BACKWARD_FILTER, "backward-filter output", dy, Tensor.OUTPUT, x,
                        Tensor.INPUT, Tensor.FILTER, dw)
                : pass(p, g, GemmConv.Pass.BACKWARD_FILTER, "backward-filter output", x, Tensor.INPUT, dy,
                        Tensor.OUTPUT, Tensor.FILTER, dw);
    }

    /** The problem's tensors, for sizes and layout conversions. */
    private enum Tensor {
        INPUT, OUTPUT, FILTER;

        long elements(ConvProblem p) {
            return switch (this) {
                case INPUT -> p.inputElements();
                case OUTPUT -> p.outputElements();
                case FILTER -> p.filterElements();
            };
        }

        /** Whether this tensor is held channels-last in the problem's layout (activations of an NHWC problem). */
        boolean channelsLast(ConvProblem p) {
            return this != FILTER && p.layout() == ConvProblem.Layout.NHWC;
        }

        float[] toChannelsFirst(ConvProblem p, float[] a) {
            return this == INPUT ? Layouts.toChannelsFirst(a, p.batch(), p.inChannels(), (int) (a.length / p.batch() / p.inChannels()))
                    : Layouts.toChannelsFirst(a, p.batch(), p.outChannels(), (int) (a.length / p.batch() / p.outChannels()));
        }

        float[] toChannelsLast(ConvProblem p, float[] a, float[] into) {
            return this == INPUT ? Layouts.toChannelsLast(a, p.batch(), p.inChannels(), (int) (a.length / p.batch() / p.inChannels()), into)
                    : Layouts.toChannelsLast(a, p.batch(), p.outChannels(), (int) (a.length / p.batch() / p.outChannels()), into);
        }
    }

    /**
     * Runs one pass: operands {@code a} and {@code b} in the kernels' order. An NHWC problem's activations are
     * converted to channels-first copies on the way in and the output back to channels-last on the way out
     * (explicitly, counted in the peak); half types are rounded into copies where an input holds values the type
     * cannot (the replay's inputs are already rounded, so it makes none). The peak counts the arrays the pass
     * really held: operands, copies, output and the scratch the kernels allocated. The output goes into {@code dest}
     * where the caller gave one (cleared first unless the pass's loops write every element,
     * {@link #overwrites}), else into a new array.
     */
    private PassResult pass(ConvProblem p, ConvGeometry g, GemmConv.Pass pass, String what, float[] a, Tensor ta,
            float[] b, Tensor tb, Tensor tout, float[] dest) throws OutOfMemory {
        long outElements = tout.elements(p);
        long conversions = 4L * ((ta.channelsLast(p) ? a.length : 0) + (tb.channelsLast(p) ? b.length : 0)
                + (tout.channelsLast(p) ? outElements : 0));
        // the cap is checked before anything is allocated, against the most the pass can hold
        allocate(p, what, outElements, a, b, scratchBytes(g, pass) + conversions);
        long held = 4L * (a.length + b.length) + 4L * outElements;
        float[] ac = ta.channelsLast(p) ? ta.toChannelsFirst(p, a) : a;
        float[] bc = tb.channelsLast(p) ? tb.toChannelsFirst(p, b) : b;
        held += (ac != a ? 4L * ac.length : 0) + (bc != b ? 4L * bc.length : 0);
        float[] ar = rounded(ac, p.dtype());
        float[] br = rounded(bc, p.dtype());
        held += (ar != ac ? 4L * ar.length : 0) + (br != bc ? 4L * br.length : 0);
        boolean convert = tout.channelsLast(p);
        float[] out = dest != null && !convert ? dest : new float[(int) outElements];
        PassTasks tasks = new PassTasks();
        long t0 = System.nanoTime();
        if (out == dest && !overwrites(g, pass)) {
            java.util.Arrays.fill(out, 0f);
        }
        try {
            run(g, pass, ar, br, out, tasks);
        } finally {
            tasks.lease.release();
        }
        double millis = (System.nanoTime() - t0) / 1e6;
        DTypeRounding.roundInPlace(out, p.dtype());
        if (convert) {
            out = tout.toChannelsLast(p, out, dest != null ? dest : new float[(int) outElements]);
            held += 4L * outElements;
        }
        return new PassResult(out, millis, held + tasks.bytes.get());
    }

    /**
     * Which loops run {@code pass} of {@code g}: with the Vector API present and at least
     * {@link #GEMM_MIN_CHANNELS} output channels per group, products that read the im2col rows in place
     * ({@link ShiftConv}; the filter gradient from
     * {@link #SHIFT_FILTER_MIN_CHANNELS} channels) or else over gathered panels ({@link GemmConv}); below that, as
     * in depthwise layers, a micro-tile would be mostly padding and the direct loops are faster.
     */
    Impl impl(ConvGeometry g, GemmConv.Pass pass) {
        return impl(kernels, g, pass);
    }

    private static Impl impl(Kernels kernels, ConvGeometry g, GemmConv.Pass pass) {
        // few input channels per group (an RGB stem): FewChannelConv's loops, for all three passes
        boolean few = kernels == Kernels.FEW ? FewChannelConv.supports(g)
                : kernels == Kernels.AUTO && FewChannelConv.applies(g);
        if (VECTOR_API && few) {
            return Impl.FEW;
        }
        boolean shiftable = switch (pass) {
            case FORWARD -> true;
            case BACKWARD_DATA -> true;
            case BACKWARD_FILTER -> kernels == Kernels.SHIFT || g.cOutPerGroup() >= SHIFT_FILTER_MIN_CHANNELS;
        };
        return switch (kernels) {
            case DIRECT -> Impl.DIRECT;
            case GEMM -> Impl.PACKED;
            case SHIFT -> shiftable ? Impl.SHIFT : Impl.PACKED;
            case AUTO, FEW -> !VECTOR_API || g.cOutPerGroup() < GEMM_MIN_CHANNELS ? Impl.DIRECT
                    : shiftable ? Impl.SHIFT : Impl.PACKED;
        };
    }

    /**
     * An upper bound of the host memory one pass of {@code p} holds on a default backend with {@code threads}
     * threads, the largest of the three: operands, output, layout copies (NHWC), rounded copies (half types) and
     * the kernels' scratch. The reproduction estimator (dev.crashlab.repro.MemoryEstimator) reports it per layer; {@code peak_bytes} never exceeds it.
     */
    public static long passBound(ConvProblem p, int threads) {
        ConvGeometry g = ConvGeometry.of(p);
        long x = p.inputElements();
        long y = p.outputElements();
        long w = p.filterElements();
        boolean nhwc = p.layout() == ConvProblem.Layout.NHWC;
        boolean half = p.dtype() != ConvProblem.DType.FLOAT32;
        // {operand a, operand b (filter or activation), output}, and whether each is an activation
        long[][] passes = {{x, w, y}, {y, w, x}, {x, y, w}};
        boolean[][] activation = {{true, false, true}, {true, false, true}, {true, true, false}};
        GemmConv.Pass[] kinds = p.transposed()
                ? new GemmConv.Pass[] {GemmConv.Pass.BACKWARD_DATA, GemmConv.Pass.FORWARD, GemmConv.Pass.BACKWARD_FILTER}
                : new GemmConv.Pass[] {GemmConv.Pass.FORWARD, GemmConv.Pass.BACKWARD_DATA, GemmConv.Pass.BACKWARD_FILTER};
        long most = 0;
        for (int i = 0; i < 3; i++) {
            long floats = passes[i][0] + passes[i][1] + passes[i][2];
            for (int t = 0; t < 3; t++) {
                floats += nhwc && activation[i][t] ? passes[i][t] : 0;
            }
            floats += half ? passes[i][0] + passes[i][1] : 0;
            most = Math.max(most, 4 * floats + scratchBytes(Kernels.AUTO, threads, g, kinds[i]));
        }
        return most;
    }

    /** Scratch bytes {@code pass} of {@code g} holds beyond its inputs and output, as counted in {@code peak_bytes}. */
    long scratchBytes(ConvGeometry g, GemmConv.Pass pass) {
        return scratchBytes(kernels, pool.getParallelism(), g, pass);
    }

    private static long scratchBytes(Kernels kernels, int threads, ConvGeometry g, GemmConv.Pass pass) {
        return switch (impl(kernels, g, pass)) {
            case DIRECT -> 0;
            case FEW -> 4 * FewChannelConv.scratchFloats(g, pass, threads);
            case PACKED -> GemmConv.scratchBytes(g, pass, threads);
            case SHIFT -> 4 * switch (pass) {
                case FORWARD -> ShiftConv.forwardScratchFloats(g, threads);
                // the flipped filter, then the forward pass of the transposed geometry
                case BACKWARD_DATA -> ShiftConv.backwardDataScratchFloats(g, threads);
                case BACKWARD_FILTER -> ShiftConv.filterScratchFloats(g, threads);
            };
        };
    }

    /**
     * Whether the loops that run {@code pass} of {@code g} write every element of the output (so a reused output
     * array needs no clearing first); the others add into an output that must start at zero.
     */
    boolean overwrites(ConvGeometry g, GemmConv.Pass pass) {
        Impl impl = impl(g, pass);
        if (impl == Impl.FEW) {
            return true; // forward stores whole tiles, backward-filter assigns dw, backward-data copies its planes out
        }
        if (pass == GemmConv.Pass.BACKWARD_FILTER) {
            return impl == Impl.SHIFT || impl == Impl.PACKED || impl == Impl.DIRECT;
        }
        if (pass == GemmConv.Pass.FORWARD) {
            return impl == Impl.SHIFT || impl == Impl.DIRECT && g.cOutPerGroup() % BLOCK == 0;
        }
        return impl == Impl.SHIFT && ShiftConv.backwardDataApplies(g);
    }

    // Runs one pass of the plain convolution g: (x, w) -> y forward, (dy, w) -> dx backward-data, (x, dy) -> dw.
    private void run(ConvGeometry g, GemmConv.Pass pass, float[] a, float[] b, float[] out, GemmConv.Tasks tasks) {
        Impl impl = impl(g, pass);
        switch (pass) {
            case FORWARD -> {
                switch (impl) {
                    case FEW -> FewChannelConv.forward(g, a, b, out, tasks);
                    case SHIFT -> ShiftConv.forward(g, a, b, out, tasks);
                    case PACKED -> GemmConv.forward(g, a, b, out, tasks);
                    case DIRECT -> forwardOf(g, a, b, out);
                }
            }
            case BACKWARD_DATA -> {
                switch (impl) {
                    case FEW -> FewChannelConv.backwardData(g, a, b, out, tasks);
                    case SHIFT -> ShiftConv.backwardData(g, a, b, out, tasks);
                    case PACKED -> GemmConv.backwardData(g, a, b, out, tasks);
                    case DIRECT -> backwardDataOf(g, a, b, out);
                }
            }
            case BACKWARD_FILTER -> {
                switch (impl) {
                    case FEW -> FewChannelConv.backwardFilter(g, a, b, out, tasks);
                    case SHIFT -> ShiftConv.backwardFilter(g, a, b, out, tasks);
                    case PACKED -> GemmConv.backwardFilter(g, a, b, out, tasks);
                    case DIRECT -> backwardFilterOf(g, a, b, out);
                }
            }
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    private static void expect(String what, float[] a, long elements) {
        if (a == null || a.length != elements) {
            throw new IllegalArgumentException(what + " must have " + elements + " elements, has "
                    + (a == null ? "none" : a.length));
        }
    }

    // Checks the pass's host memory against the cap before allocating; returns the pass's peak in bytes: its
    // inputs (and their rounded copies for half types), its scratch and its output.
    private long allocate(ConvProblem p, String what, long outElements, float[] a, float[] b, long scratch)
            throws OutOfMemory {
        long held = 4L * (a.length + b.length) * (p.dtype() == ConvProblem.DType.FLOAT32 ? 1 : 2) + scratch;
        long out = 4L * outElements;
        if (outElements > Integer.MAX_VALUE - 16) {
            throw new OutOfMemory(what, out, 4L * (Integer.MAX_VALUE - 16));
        }
        if (capBytes > 0 && held + out > capBytes) {
            throw new OutOfMemory(what, out, Math.max(0, capBytes - held));
        }
        return held + out;
    }

    private static float[] rounded(float[] a, ConvProblem.DType dtype) {
        if (dtype == ConvProblem.DType.FLOAT32) {
            return a;
        }
        boolean exact = true;
        for (int i = 0; i < a.length && exact; i++) {
            exact = DTypeRounding.round(a[i], dtype) == a[i] || Float.isNaN(a[i]);
        }
        if (exact) {
            return a;
        }
        float[] r = a.clone();
        DTypeRounding.roundInPlace(r, dtype);
        return r;
    }

    private void parallel(int tasks, java.util.function.IntConsumer task) {
        pool.submit(() -> IntStream.range(0, tasks).parallel().forEach(task)).join();
    }

    /** Output channels computed together by the blocked forward pass: each input row loaded serves this many. */
    static final int BLOCK = 4;

    /** y = conv(x, w): blocks of four output channels where the groups allow, else one channel at a time. */
    private void forwardOf(ConvGeometry g, float[] x, float[] w, float[] y) {
        if (g.cOutPerGroup() % BLOCK == 0) {
            forwardBlocked(g, x, w, y);
        } else {
            forwardByChannel(g, x, w, y);
        }
    }

    /**
     * y = conv(x, w), one task per (n, four output channels of one group), one output row at a time in four
     * row accumulators. NOTE: the accumulators are separate arrays indexed alike, so the JIT can vectorise the
     * loop that updates all four from one load of the input row (one array at four offsets it cannot).
     */
    private void forwardBlocked(ConvGeometry g, float[] x, float[] w, float[] y) {
        int[] in = g.in();
        int[] out = g.out();
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int inPlane = g.inSpatial();
        int outPlane = g.outSpatial();
        int kv = g.kernelVolume();
        int blocks = g.cOut() / BLOCK;
        int ow = out[2];
        parallel(g.n() * blocks, task -> {
            int n = task / blocks;
            int k0 = task % blocks * BLOCK;
            int c0 = k0 / kpg * cpg;
            float[] a0 = new float[ow];
            float[] a1 = new float[ow];
            float[] a2 = new float[ow];
            float[] a3 = new float[ow];
            int[] lo = new int[g.k()[2]];
            int[] hi = new int[g.k()[2]];
            for (int kw = 0; kw < g.k()[2]; kw++) {
                int offW = kw * g.dil()[2] - g.pad()[2];
                lo[kw] = firstInside(offW, g.s()[2]);
                hi[kw] = lastInside(offW, g.s()[2], in[2], ow);
            }
            int sw = g.s()[2];
            int wStride = cpg * kv;
            for (int od = 0; od < out[0]; od++) {
                for (int oh = 0; oh < out[1]; oh++) {
                    java.util.Arrays.fill(a0, 0f);
                    java.util.Arrays.fill(a1, 0f);
                    java.util.Arrays.fill(a2, 0f);
                    java.util.Arrays.fill(a3, 0f);
                    for (int cc = 0; cc < cpg; cc++) {
                        int xBase = (n * g.cIn() + c0 + cc) * inPlane;
                        int wBase = (k0 * cpg + cc) * kv;
                        for (int kd = 0; kd < g.k()[0]; kd++) {
                            int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                            if (id < 0 || id >= in[0]) {
                                continue;
                            }
                            for (int kh = 0; kh < g.k()[1]; kh++) {
                                int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                                if (ih < 0 || ih >= in[1]) {
                                    continue;
                                }
                                int xRowStart = xBase + (id * in[1] + ih) * in[2];
                                for (int kw = 0; kw < g.k()[2]; kw++) {
                                    int tap = wBase + (kd * g.k()[1] + kh) * g.k()[2] + kw;
                                    float w0 = w[tap];
                                    float w1 = w[tap + wStride];
                                    float w2 = w[tap + 2 * wStride];
                                    float w3 = w[tap + 3 * wStride];
                                    int xRow = xRowStart + kw * g.dil()[2] - g.pad()[2];
                                    if (sw == 1) {
                                        for (int o = lo[kw]; o < hi[kw]; o++) {
                                            float xv = x[xRow + o];
                                            a0[o] += w0 * xv;
                                            a1[o] += w1 * xv;
                                            a2[o] += w2 * xv;
                                            a3[o] += w3 * xv;
                                        }
                                    } else {
                                        for (int o = lo[kw]; o < hi[kw]; o++) {
                                            float xv = x[xRow + o * sw];
                                            a0[o] += w0 * xv;
                                            a1[o] += w1 * xv;
                                            a2[o] += w2 * xv;
                                            a3[o] += w3 * xv;
                                        }
                                    }
                                }
                            }
                        }
                    }
                    int row = (od * out[1] + oh) * ow;
                    System.arraycopy(a0, 0, y, (n * g.cOut() + k0) * outPlane + row, ow);
                    System.arraycopy(a1, 0, y, (n * g.cOut() + k0 + 1) * outPlane + row, ow);
                    System.arraycopy(a2, 0, y, (n * g.cOut() + k0 + 2) * outPlane + row, ow);
                    System.arraycopy(a3, 0, y, (n * g.cOut() + k0 + 3) * outPlane + row, ow);
                }
            }
        });
    }

    /** y = conv(x, w); one task per (n, output channel). */
    private void forwardByChannel(ConvGeometry g, float[] x, float[] w, float[] y) {
        int[] in = g.in();
        int[] out = g.out();
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int inPlane = g.inSpatial();
        int outPlane = g.outSpatial();
        int kv = g.kernelVolume();
        boolean pointwise = g.kernelVolume() == 1 && outPlane == inPlane && g.s()[0] * g.s()[1] * g.s()[2] == 1
                && g.pad()[0] + g.pad()[1] + g.pad()[2] == 0;
        parallel(g.n() * g.cOut(), task -> {
            int n = task / g.cOut();
            int ko = task % g.cOut();
            int c0 = ko / kpg * cpg;
            int yBase = task * outPlane;
            if (pointwise) {
                // a 1x1 convolution without stride or padding: whole planes, one long loop each
                for (int cc = 0; cc < cpg; cc++) {
                    axpyGather(y, yBase, x, (n * g.cIn() + c0 + cc) * inPlane, 1, w[ko * cpg + cc], 0, outPlane);
                }
                return;
            }
            for (int cc = 0; cc < cpg; cc++) {
                int xBase = (n * g.cIn() + c0 + cc) * inPlane;
                int wBase = (ko * cpg + cc) * kv;
                for (int kd = 0; kd < g.k()[0]; kd++) {
                    for (int kh = 0; kh < g.k()[1]; kh++) {
                        for (int kw = 0; kw < g.k()[2]; kw++) {
                            float wv = w[wBase + (kd * g.k()[1] + kh) * g.k()[2] + kw];
                            if (wv == 0f) {
                                continue;
                            }
                            int offW = kw * g.dil()[2] - g.pad()[2];
                            int lo = firstInside(offW, g.s()[2]);
                            int hi = lastInside(offW, g.s()[2], in[2], out[2]);
                            for (int od = 0; od < out[0]; od++) {
                                int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                                if (id < 0 || id >= in[0]) {
                                    continue;
                                }
                                for (int oh = 0; oh < out[1]; oh++) {
                                    int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                                    if (ih < 0 || ih >= in[1]) {
                                        continue;
                                    }
                                    int yRow = yBase + (od * out[1] + oh) * out[2];
                                    int xRow = xBase + (id * in[1] + ih) * in[2] + offW;
                                    axpyGather(y, yRow, x, xRow, g.s()[2], wv, lo, hi);
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    /** dx = the input gradient of conv(x, w) given dy; one task per (n, input channel). */
    private void backwardDataOf(ConvGeometry g, float[] dy, float[] w, float[] dx) {
        int[] in = g.in();
        int[] out = g.out();
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int inPlane = g.inSpatial();
        int outPlane = g.outSpatial();
        int kv = g.kernelVolume();
        parallel(g.n() * g.cIn(), task -> {
            int n = task / g.cIn();
            int c = task % g.cIn();
            int group = c / cpg;
            int cc = c % cpg;
            int xBase = task * inPlane;
            for (int kk = 0; kk < kpg; kk++) {
                int ko = group * kpg + kk;
                int yBase = (n * g.cOut() + ko) * outPlane;
                int wBase = (ko * cpg + cc) * kv;
                for (int kd = 0; kd < g.k()[0]; kd++) {
                    for (int kh = 0; kh < g.k()[1]; kh++) {
                        for (int kw = 0; kw < g.k()[2]; kw++) {
                            float wv = w[wBase + (kd * g.k()[1] + kh) * g.k()[2] + kw];
                            if (wv == 0f) {
                                continue;
                            }
                            int offW = kw * g.dil()[2] - g.pad()[2];
                            int lo = firstInside(offW, g.s()[2]);
                            int hi = lastInside(offW, g.s()[2], in[2], out[2]);
                            for (int od = 0; od < out[0]; od++) {
                                int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                                if (id < 0 || id >= in[0]) {
                                    continue;
                                }
                                for (int oh = 0; oh < out[1]; oh++) {
                                    int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                                    if (ih < 0 || ih >= in[1]) {
                                        continue;
                                    }
                                    int yRow = yBase + (od * out[1] + oh) * out[2];
                                    int xRow = xBase + (id * in[1] + ih) * in[2] + offW;
                                    axpyScatter(dx, xRow, g.s()[2], dy, yRow, wv, lo, hi);
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    /** dw = the filter gradient of conv(x, w) given dy; one task per (output channel, input channel of its group). */
    private void backwardFilterOf(ConvGeometry g, float[] x, float[] dy, float[] dw) {
        int[] in = g.in();
        int[] out = g.out();
        int cpg = g.cInPerGroup();
        int kpg = g.cOutPerGroup();
        int inPlane = g.inSpatial();
        int outPlane = g.outSpatial();
        int kv = g.kernelVolume();
        parallel(g.cOut() * cpg, task -> {
            int ko = task / cpg;
            int cc = task % cpg;
            int c = ko / kpg * cpg + cc;
            float[] acc = new float[out[2]];
            for (int kd = 0; kd < g.k()[0]; kd++) {
                for (int kh = 0; kh < g.k()[1]; kh++) {
                    for (int kw = 0; kw < g.k()[2]; kw++) {
                        java.util.Arrays.fill(acc, 0f);
                        int offW = kw * g.dil()[2] - g.pad()[2];
                        int lo = firstInside(offW, g.s()[2]);
                        int hi = lastInside(offW, g.s()[2], in[2], out[2]);
                        for (int n = 0; n < g.n(); n++) {
                            int xBase = (n * g.cIn() + c) * inPlane;
                            int yBase = (n * g.cOut() + ko) * outPlane;
                            for (int od = 0; od < out[0]; od++) {
                                int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                                if (id < 0 || id >= in[0]) {
                                    continue;
                                }
                                for (int oh = 0; oh < out[1]; oh++) {
                                    int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                                    if (ih < 0 || ih >= in[1]) {
                                        continue;
                                    }
                                    int yRow = yBase + (od * out[1] + oh) * out[2];
                                    int xRow = xBase + (id * in[1] + ih) * in[2] + offW;
                                    productAccumulate(acc, dy, yRow, x, xRow, g.s()[2], lo, hi);
                                }
                            }
                        }
                        float sum = 0f;
                        for (int ow = lo; ow < hi; ow++) {
                            sum += acc[ow];
                        }
                        dw[task * kv + (kd * g.k()[1] + kh) * g.k()[2] + kw] = sum;
                    }
                }
            }
        });
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

    private static void axpyGather(float[] y, int yRow, float[] x, int xRow, int s, float a, int lo, int hi) {
        if (s == 1) {
            for (int ow = lo; ow < hi; ow++) {
                y[yRow + ow] += a * x[xRow + ow];
            }
        } else {
            for (int ow = lo; ow < hi; ow++) {
                y[yRow + ow] += a * x[xRow + ow * s];
            }
        }
    }

    private static void axpyScatter(float[] dx, int xRow, int s, float[] dy, int yRow, float a, int lo, int hi) {
        if (s == 1) {
            for (int ow = lo; ow < hi; ow++) {
                dx[xRow + ow] += a * dy[yRow + ow];
            }
        } else {
            for (int ow = lo; ow < hi; ow++) {
                dx[xRow + ow * s] += a * dy[yRow + ow];
            }
        }
    }

    private static void productAccumulate(float[] acc, float[] dy, int yRow, float[] x, int xRow, int s, int lo, int hi) {
        if (s == 1) {
            for (int ow = lo; ow < hi; ow++) {
                acc[ow] += dy[yRow + ow] * x[xRow + ow];
            }
        } else {
            for (int ow = lo; ow < hi; ow++) {
                acc[ow] += dy[yRow + ow] * x[xRow + ow * s];
            }
        }
    }
}
