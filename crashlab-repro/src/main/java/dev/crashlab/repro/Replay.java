package dev.crashlab.repro;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvOracle;
import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.DTypeRounding;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Runs a {@link ReproSpec} layer by layer on a {@link ConvBackend}, under an optional memory cap, with
 * seeded inputs, and judges each pass: out of memory, device error, or sampled outputs against the
 * {@link ConvOracle} within the dtype's tolerance.
 *
 * <p>NOTE: a layer that runs out of memory does not stop the replay (the next layer may fit, and the triager
 * wants to know which do); a device error does, since a GPU context is unusable after most of them, and the
 * layers after it are reported as skipped. The same seed gives the same inputs on every backend. Only GPU
 * backends are flagged for the Windows TDR limit.
 */
public final class Replay {

    /** Outputs checked against the oracle per pass. */
    static final int SAMPLES = 128;

    /** Relative tolerance on the sum of the terms' magnitudes: float32 accumulation in any order stays inside. */
    static final double ACCUMULATION_TOLERANCE = 2e-4;

    /** Seed used when the caller gives none. */
    public static final long DEFAULT_SEED = 20261122L;

    /** Receives each layer's result as soon as it is known (the job runner streams them as progress). */
    @FunctionalInterface
    public interface Progress {
        void layerDone(int index, int count, ReplayResult.LayerResult result);

        /**
         * Told before each pass starts, with the floating-point operations of the passes already done and of the
         * whole replay (each pass counts 2 x its multiply-adds, skipped passes included), for a progress bar.
         */
        default void passStarting(int index, int count, String layer, String pass, long flopDone, long flopTotal) {}
    }

    private final ConvBackend backend;
    private final long memoryCapBytes;
    private final long seed;
    private final Progress progress;

    /**
     * @param backend where to run; the replay does not close it
     * @param memoryCapBytes the cap emulating the reporter's card, 0 for none
     * @param seed the seed of the inputs
     * @param progress told of each layer's result, or null
     */
    public Replay(ConvBackend backend, long memoryCapBytes, long seed, Progress progress) {
        if (memoryCapBytes < 0) {
            throw new IllegalArgumentException("memory cap must be >= 0: " + memoryCapBytes);
        }
        this.backend = backend;
        this.memoryCapBytes = memoryCapBytes;
        this.seed = seed;
        this.progress = progress == null ? (i, n, r) -> { } : progress;
    }

    /** A replay without a cap, with the default seed. */
    public Replay(ConvBackend backend) {
        this(backend, 0, DEFAULT_SEED, null);
    }

    /** Replays every layer of {@code spec}; never throws for what the backend reports. */
    public ReplayResult run(ReproSpec spec) {
        MemoryEstimate estimate = MemoryEstimator.estimate(spec);
        Optional<String> unavailable = backend.unavailableReason();
        if (unavailable.isPresent()) {
            return new ReplayResult(ReplayResult.Status.UNAVAILABLE, backend.name(), null,
                    "backend " + backend.name() + " is unavailable: " + unavailable.get(), memoryCapBytes, seed,
                    estimate, List.of(), ReplayFindings.of(spec, estimate));
        }
        String device = backend.device();
        if (spec.layout() == ConvProblem.Layout.NHWC) {
            // the tensors are held channels-last, as the reporter's framework held them; no backend computes so
            device += "; NHWC tensors converted explicitly to channels-first and back around each pass"
                    + (backend.name().equals("cpu") ? " (the copies count in peak_bytes)" : ", on the host");
        }
        backend.memoryCap(memoryCapBytes);
        List<ConvProblem> problems = spec.problems();
        List<ReplayResult.LayerResult> results = new ArrayList<>();
        boolean training = spec.mode() == ReproSpec.Mode.TRAINING;
        int passes = training ? 3 : 1;
        flopTotal = 0;
        for (ConvProblem p : problems) {
            flopTotal += passes * 2 * p.macs();
        }
        flopDone = 0;
        String deviceBroken = null;
        String crash = null;
        for (int i = 0; i < problems.size(); i++) {
            ConvProblem p = problems.get(i);
            ReplayResult.LayerResult r;
            if (deviceBroken != null) {
                r = new ReplayResult.LayerResult(p.name(), p.toString(), ReplayResult.LayerStatus.SKIPPED, 0,
                        new ReplayResult.PassTimes(null, null, null), null, false, null,
                        "not run after " + deviceBroken);
            } else {
                LayerRun run = new LayerRun(p, training, seed + 0x9E3779B97F4A7C15L * (i + 1), i, problems.size());
                r = run.result();
                if (r.status() == ReplayResult.LayerStatus.DEVICE_ERROR) {
                    deviceBroken = r.error() + " in " + p.name();
                    if (run.crashed) {
                        crash = r.message();
                    }
                }
            }
            results.add(r);
            flopDone = flopDoneBefore(problems, i + 1, passes);
            progress.layerDone(i, problems.size(), r);
        }
        arrays.keepOnly(); // nothing is held once the replay is over
        return new ReplayResult(crash != null ? ReplayResult.Status.CRASHED : overall(results), backend.name(), device,
                crash != null ? "the backend failed unexpectedly: " + crash : reason(results, training, device),
                memoryCapBytes, seed, estimate, results, ReplayFindings.of(spec, estimate));
    }

    private long flopTotal;
    private long flopDone;
    private final TensorArrays arrays = new TensorArrays();

    /**
     * The host arrays of the replay's tensors, reused from layer to layer and pass to pass by length: the backend
     * writes each pass's output into an array the replay owns ({@link ConvBackend#forward(ConvProblem, float[],
     * float[], float[])}), so a pass does not pay for allocating and zeroing a new one (for a 1x1 layer's
     * backward-data that was half the pass's time). Bounded: before a layer takes its arrays, the free ones of
     * lengths it does not use are dropped, so the replay holds at most one layer's tensors.
     */
    public static final class TensorArrays {
        private final java.util.Map<Integer, java.util.ArrayDeque<float[]>> free = new java.util.HashMap<>();
        private final List<float[]> taken = new ArrayList<>();

        /** Drops the free arrays of every length but these. */
        public void keepOnly(long... lengths) {
            free.keySet().removeIf(n -> java.util.Arrays.stream(lengths).noneMatch(l -> l == n));
        }

        /** An array of {@code n} floats with any contents, reused where one is free. */
        public float[] take(long n) {
            java.util.ArrayDeque<float[]> q = free.get((int) n);
            float[] a = q == null || q.isEmpty() ? new float[(int) n] : q.pop();
            taken.add(a);
            return a;
        }

        /** Every array taken since the last call is free again. */
        public void giveBackAll() {
            for (float[] a : taken) {
                free.computeIfAbsent(a.length, k -> new java.util.ArrayDeque<>()).push(a);
            }
            taken.clear();
        }

        /** Floats held, free or taken. */
        public long floats() {
            long f = 0;
            for (java.util.ArrayDeque<float[]> q : free.values()) {
                for (float[] a : q) {
                    f += a.length;
                }
            }
            for (float[] a : taken) {
                f += a.length;
            }
            return f;
        }
    }

    /** Floating-point operations of the layers finished so far in the running replay (2 x multiply-adds per pass). */
    public long flopDone() {
        return flopDone;
    }

    /** Floating-point operations of every pass of the running replay. */
    public long flopTotal() {
        return flopTotal;
    }

    private static long flopDoneBefore(List<ConvProblem> problems, int layers, int passes) {
        long f = 0;
        for (int i = 0; i < layers; i++) {
            f += passes * 2 * problems.get(i).macs();
        }
        return f;
    }

    private static ReplayResult.Status overall(List<ReplayResult.LayerResult> results) {
        for (ReplayResult.LayerResult r : results) {
            if (r.status() != ReplayResult.LayerStatus.PASSED) {
                return ReplayResult.Status.FAILED;
            }
        }
        return ReplayResult.Status.PASSED;
    }

    private String reason(List<ReplayResult.LayerResult> results, boolean training, String device) {
        List<String> failures = new ArrayList<>();
        long tdr = results.stream().filter(ReplayResult.LayerResult::tdrRisk).count();
        for (ReplayResult.LayerResult r : results) {
            if (r.status() != ReplayResult.LayerStatus.PASSED && r.status() != ReplayResult.LayerStatus.SKIPPED) {
                failures.add(r.name() + ": " + r.status().label() + (r.message() == null ? "" : " (" + r.message() + ")"));
            }
        }
        String tdrNote = tdr == 0 ? "" : "; " + tdr + " layer(s) with a pass over the 2000 ms Windows TDR limit";
        if (failures.isEmpty()) {
            return results.size() + " layer(s) passed " + (training ? "forward, backward-data and backward-filter"
                    : "forward") + " on " + device + (memoryCapBytes > 0 ? " under a " + ByteSize.format(memoryCapBytes) + " cap" : "")
                    + tdrNote;
        }
        return failures.size() + " of " + results.size() + " layer(s) failed: " + String.join("; ", failures) + tdrNote;
    }

    /** One layer's passes and their checks. */
    private final class LayerRun {
        final ConvProblem p;
        final boolean training;
        final SplittableRandom random;
        final ConvOracle oracle;
        Double fwd;
        Double bwdData;
        Double bwdFilter;
        long peak;
        double maxError = -1;
        String mismatch;
        boolean crashed;
        final int index;
        final int count;

        LayerRun(ConvProblem p, boolean training, long layerSeed, int index, int count) {
            this.index = index;
            this.count = count;
            this.p = p;
            this.training = training;
            this.random = new SplittableRandom(layerSeed);
            this.oracle = new ConvOracle(p);
        }

        ReplayResult.LayerResult result() {
            try {
                long largest = Math.max(p.inputElements(), Math.max(p.outputElements(), p.filterElements()));
                if (largest > Integer.MAX_VALUE - 16) {
                    return done(ReplayResult.LayerStatus.OUT_OF_MEMORY, "HOST_ARRAY_LIMIT", "a tensor of " + largest
                            + " elements is larger than a host array can be; this layer cannot be replayed from here");
                }
                long tensors = 4 * (p.inputElements() + p.filterElements() + p.outputElements());
                if (memoryCapBytes > 0 && tensors > memoryCapBytes) {
                    // refused before the inputs are even generated: gigabytes of random numbers only to be told no
                    return done(ReplayResult.LayerStatus.OUT_OF_MEMORY, "OUT_OF_MEMORY", "out of memory: the forward"
                            + " pass's input, filter and output alone need " + ByteSize.format(tensors) + ", more than the "
                            + ByteSize.format(memoryCapBytes) + " cap");
                }
                runPasses();
                return mismatch == null ? done(ReplayResult.LayerStatus.PASSED, null, null)
                        : done(ReplayResult.LayerStatus.MISMATCH, null, mismatch);
            } catch (ConvBackend.OutOfMemory e) {
                return done(ReplayResult.LayerStatus.OUT_OF_MEMORY, "OUT_OF_MEMORY", e.getMessage());
            } catch (ConvBackend.DeviceError e) {
                return done(ReplayResult.LayerStatus.DEVICE_ERROR, e.errorName(), e.getMessage());
            } catch (ConvBackend.BackendException e) {
                // sealed to the two above; javac cannot see that a catch of both is exhaustive
                return done(ReplayResult.LayerStatus.DEVICE_ERROR, "BACKEND_ERROR", e.getMessage());
            } catch (OutOfMemoryError e) {
                return done(ReplayResult.LayerStatus.OUT_OF_MEMORY, "HOST_OUT_OF_MEMORY",
                        "the Java heap could not hold this layer's tensors: " + e.getMessage());
            } catch (RuntimeException e) {
                crashed = true;
                return done(ReplayResult.LayerStatus.DEVICE_ERROR, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
            }
        }

        private void runPasses() throws ConvBackend.BackendException {
            arrays.keepOnly(p.inputElements(), p.filterElements(), p.outputElements());
            try {
                float[] w = inputs(p.filterElements(), 1 / Math.sqrt((double) p.filterElements() / p.outChannels()));
                float[] x = inputs(p.inputElements(), 1);
                starting("forward", 0);
                ConvBackend.PassResult y = backend.forward(p, x, w, arrays.take(p.outputElements()));
                record("forward", y, p.outputElements());
                fwd = y.kernelMillis();
                check("forward", y.output(), i -> oracle.forward(x, w, i));
                if (!training) {
                    return;
                }
                float[] dy = inputs(p.outputElements(), 1);
                starting("backward-data", 1);
                ConvBackend.PassResult dx = backend.backwardData(p, dy, w, arrays.take(p.inputElements()));
                record("backward-data", dx, p.inputElements());
                bwdData = dx.kernelMillis();
                check("backward-data", dx.output(), i -> oracle.backwardData(dy, w, i));
                starting("backward-filter", 2);
                ConvBackend.PassResult dw = backend.backwardFilter(p, x, dy, arrays.take(p.filterElements()));
                record("backward-filter", dw, p.filterElements());
                bwdFilter = dw.kernelMillis();
                check("backward-filter", dw.output(), i -> oracle.backwardFilter(x, dy, i));
            } finally {
                arrays.giveBackAll();
            }
        }

        private void starting(String pass, int done) {
            progress.passStarting(index, count, p.name(), pass, flopDone + done * 2 * p.macs(), flopTotal);
        }

        private float[] inputs(long count, double scale) {
            float[] a = arrays.take(count);
            for (int i = 0; i < a.length; i++) {
                a[i] = DTypeRounding.round((float) ((random.nextDouble() * 2 - 1) * scale), p.dtype());
            }
            return a;
        }

        private void record(String pass, ConvBackend.PassResult r, long expected) throws ConvBackend.DeviceError {
            if (r.output() == null || r.output().length != expected) {
                throw new ConvBackend.DeviceError("WRONG_OUTPUT_SIZE", pass + " returned "
                        + (r.output() == null ? "no output" : r.output().length + " elements") + ", expected " + expected);
            }
            peak = Math.max(peak, r.peakBytes());
        }

        private void check(String pass, float[] got, java.util.function.LongFunction<ConvOracle.Value> ref) {
            double outEps = switch (p.dtype()) {
                case FLOAT32 -> 0;
                case FLOAT16 -> 1.0 / 1024;
                case BFLOAT16 -> 1.0 / 128;
            };
            int samples = (int) Math.min(SAMPLES, got.length);
            for (int s = 0; s < samples; s++) {
                // the first and last elements always (edges and padding live there), the rest at random
                long i = s == 0 ? 0 : s == 1 ? got.length - 1 : random.nextLong(got.length);
                ConvOracle.Value v = ref.apply(i);
                double err = Math.abs(got[(int) i] - v.value());
                maxError = Math.max(maxError, err);
                double tolerance = ACCUMULATION_TOLERANCE * v.magnitude() + outEps * Math.abs(v.value()) + 1e-6;
                if ((!(err <= tolerance)) && mismatch == null) {
                    mismatch = pass + " element " + i + " is " + got[(int) i] + ", expected " + v.value()
                            + " (tolerance " + String.format(java.util.Locale.ROOT, "%.3g", tolerance) + ")";
                }
            }
        }

        private ReplayResult.LayerResult done(ReplayResult.LayerStatus status, String error, String message) {
            ReplayResult.PassTimes times = new ReplayResult.PassTimes(fwd, bwdData, bwdFilter);
            // the watchdog guards a GPU's display driver: a slow CPU pass says nothing about it
            boolean tdr = !backend.name().equals("cpu") && times.longest() > ReplayResult.TDR_LIMIT_MS;
            return new ReplayResult.LayerResult(p.name(), p.toString(), status, peak, times,
                    maxError < 0 ? null : maxError, tdr, error, message);
        }
    }
}
