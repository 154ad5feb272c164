package dev.crashlab.bench;

import dev.crashlab.parse.ArtifactFacts;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.CpuConvBackend;
import dev.crashlab.conv.NaiveConvTiming;
import dev.crashlab.repro.Replay;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecs;
import dev.crashlab.sniff.ArtifactSniffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Measures the CPU backend's GFLOP/s on three standard ResNet-50 layers next to the machine's FMA peak measured in
 * the same JVM on the same threads, the whole replay of a real model next to the naive loop, and the CUDA
 * backend's TFLOP/s where a device exists, and prints the tables {@code scripts/bench repro} shows.
 *
 * <p>NOTE: each figure is the median of timed runs after untimed warm-up runs (the JIT compiles the loops
 * first); a pass counts 2 flops per multiply-add ({@link ConvProblem#macs()}).
 */
public final class ReproBench {

    private ReproBench() {}

    /** The real model whose every convolution the whole-model row replays (a Keras 3 U-Net with transposed layers). */
    static final String DEFAULT_MODEL = "../shared/corpus/model-configs/keras3-functional-unet-conv2dtranspose-to_json.json";

    /**
     * Rows to measure, for development: those whose layer name and pass ("conv1 7x7 3->64 224x224 s2 backward-filter")
     * contain one of these comma-separated strings (system property {@code crashlab.bench.rows}, e.g. {@code 1x1,3x3}
     * or {@code s2 backward-filter}); empty measures every row, the model and CUDA.
     */
    static final List<String> ROWS = Arrays.stream(System.getProperty("crashlab.bench.rows", "").split(","))
            .filter(s -> !s.isBlank()).toList();

    static final List<String> PASSES = List.of("forward", "backward-data", "backward-filter");

    /** A measured layer: 2D, square, NCHW float32, equal padding on both sides. */
    record Layer(String name, int in, int size, int out, int kernel, int stride, int pad) {}

    /** The three ResNet-50 layers every row measures (also {@link ReproAB}'s). */
    static final List<Layer> LAYERS = List.of(
            new Layer("conv2_x 3x3 64->64 56x56", 64, 56, 64, 3, 1, 1),
            new Layer("1x1 256->64 56x56", 256, 56, 64, 1, 1, 0),
            new Layer("conv1 7x7 3->64 224x224 s2", 3, 224, 64, 7, 2, 3));

    /** Whether the row "layer pass" is measured: {@link #ROWS} is empty or one of its strings is part of it. */
    static boolean selected(String row) {
        return ROWS.isEmpty() || ROWS.stream().anyMatch(row::contains);
    }

    /** Arguments: [batch] [runs] [model file]. */
    public static void main(String[] args) throws Exception {
        int batch = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path model = Path.of(args.length > 2 ? args[2] : DEFAULT_MODEL);
        int threads = Runtime.getRuntime().availableProcessors();
        ConvProblem[] layers = LAYERS.stream().map(l -> problem(l.name(), batch, l.in(), l.size(), l.out(), l.kernel(),
                l.stride(), l.pad())).toArray(ConvProblem[]::new);
        try (CpuConvBackend cpu = new CpuConvBackend(threads); PeakRounds peakRounds = new PeakRounds(threads)) {
            Rate before = peakGflops(threads);
            List<Measured> lines = new ArrayList<>();
            // every row's passes are built first and run untimed once round (each then gets its own 2 s of warm-up):
            // the loops the rows share are compiled before the first row is timed, so the JIT's threads, whose CPU
            // time the process clock counts, do not weigh on whichever row happens to come first
            List<Row> rows = new ArrayList<>();
            for (ConvProblem p : layers) {
                if (!ROWS.isEmpty() && PASSES.stream().noneMatch(pass -> selected(p.name() + " " + pass))) {
                    continue;
                }
                SplittableRandom r = new SplittableRandom(7);
                float[] x = random(r, p.inputElements());
                float[] w = random(r, p.filterElements());
                float[] dy = random(r, p.outputElements());
                double gflop = 2.0 * p.macs() / 1e9;
                // as the replay calls them: each pass writes into an output array the caller reuses
                float[] y = new float[(int) p.outputElements()];
                float[] dx = new float[(int) p.inputElements()];
                float[] dw = new float[(int) p.filterElements()];
                rows.add(new Row(p, "forward", gflop, () -> cpu.forward(p, x, w, y)));
                rows.add(new Row(p, "backward-data", gflop, () -> cpu.backwardData(p, dy, w, dx)));
                rows.add(new Row(p, "backward-filter", gflop, () -> cpu.backwardFilter(p, x, dy, dw)));
            }
            rows.removeIf(row -> !selected(row.p().name() + " " + row.pass()));
            for (int round = 0; round < 3; round++) {
                for (Row row : rows) {
                    row.body().run();
                }
            }
            peakRounds.round(); // compiles the peak loop before the first row's first peak round
            for (Row row : rows) {
                lines.add(measure(row.p(), row.pass(), row.gflop(), runs, row.body(), peakRounds));
            }
            // the peak after the rows as well as before, the better of the two: the machine's load changes in between
            Rate after = peakGflops(threads);
            Rate peak = new Rate(Math.max(before.wall(), after.wall()), Math.max(before.perCpuSecond(), after.perCpuSecond()));
            System.out.printf(Locale.ROOT, "%nrepro benchmark: CPU backend (%s), batch %d, %d thread(s), float32, median of %d"
                    + " samples of at least 1 CPU-second each, after at least 2 s of warm-up per pass; load average %s%n",
                    cpu.kernelsDescription(), batch, threads, runs, loadAverage());
            System.out.printf(Locale.ROOT, "peer: the FMA peak on the same %d thread(s) in this JVM: a %d-lane Vector API loop"
                    + " with 12 accumulators in registers, one round of at least %.1f CPU-second right before each of a row's"
                    + " samples ('peak' is the median of a row's rounds); for reference, the best round before and after all"
                    + " the rows (the better of that loop and a vectorised Java loop): %.1f GFLOP/s wall, %.1f GFLOP per"
                    + " CPU-second%n", threads, VectorPeak.LANES, PEAK_ROUND_CPU_NANOS / 1e9, peak.wall(), peak.perCpuSecond());
            System.out.println("(per CPU-second divides by the CPU time this process used, so other load on the machine skews"
                    + " it less than wall time; 'x peak' is the row's median GFLOP per CPU-second over the median of the peak"
                    + " rounds interleaved with its samples, so a change in the machine's speed during the run (its clock,"
                    + " another guest on the same core) moves both sides; 'range' is the lowest and highest sample's ratio to"
                    + " the peak round right before it)");
            System.out.printf(Locale.ROOT, "(second peer: reading memory no cache holds, %d MiB summed in vectors on the same"
                    + " threads, a round of at least %.2f CPU-second after each peak round; 'GB/cpu-s' is the median of a"
                    + " row's rounds; 'mem roof' is the row's ceiling in units of the peak if its operands and output"
                    + " crossed memory once at that rate: a row near its roof waits on memory, a roof far above 1 says the"
                    + " row's time goes to arithmetic and to how its loops use the caches)%n", 4L * MemoryRead.FLOATS >> 20,
                    MEMORY_ROUND_CPU_NANOS / 1e9);
            System.out.printf(Locale.ROOT, "%-28s %-16s %10s %10s %12s %8s %8s %12s %9s %9s%n", "layer", "pass", "ms",
                    "GFLOP/s", "GFLOP/cpu-s", "peak", "x peak", "range", "GB/cpu-s", "mem roof");
            for (Measured m : lines) {
                System.out.printf(Locale.ROOT, "%-28s %-16s %10.1f %10.1f %12.1f %8.1f %8.2f %5.2f-%-5.2f %9.1f %9.2f%n",
                        m.p().name(), m.pass(), m.ms(), m.wall(), m.perCpu(), m.peak(), m.perCpu() / m.peak(), m.lowRatio(),
                        m.highRatio(), m.readRate(), m.memoryRoof());
            }
            if (!ROWS.isEmpty()) {
                return; // a partial run, for development: no whole-model or CUDA rows
            }
            modelRow(cpu, model);
        }
        cudaRows(layers, runs);
    }

    /**
     * Replays every convolution of a real model at its batch (all three passes, as a training replay does) on
     * the CPU backend, next to the naive loop's time for the same layers, estimated from a sample of each pass's
     * elements (the whole naive run would take hours).
     */
    private static void modelRow(CpuConvBackend cpu, Path model) throws Exception {
        if (!Files.isRegularFile(model)) {
            System.out.printf(Locale.ROOT, "%nwhole model: not measured: %s is absent (the corpus is not here)%n", model);
            return;
        }
        ReproSpec spec = ReproSpecs.fromFacts(ArtifactFacts.of(new ParseInput(model.getFileName().toString(),
                new ArtifactSniffer().sniff(model.getFileName().toString(), model), model)).facts());
        List<ConvProblem> problems = spec.problems();
        if (problems.isEmpty()) {
            System.out.printf(Locale.ROOT, "%nwhole model: not measured: %s gives no convolution%n", model);
            return;
        }
        double gflop = 0;
        double naive = 0;
        SplittableRandom r = new SplittableRandom(11);
        for (ConvProblem p : problems) {
            gflop += 3 * 2.0 * p.macs() / 1e9;
            naive += NaiveConvTiming.estimatedSeconds(p, 256, r);
        }
        // one layer's tensors at a time (a model's every tensor at its batch can exceed the heap); drawing them is
        // not timed
        double[] seconds = new double[2];
        double[] cpuSeconds = new double[2];
        // the arrays as the replay holds them: reused from layer to layer where the lengths match, else new ones
        Replay.TensorArrays arrays = new Replay.TensorArrays();
        for (int round = 0; round < 2; round++) { // the first round is the warm-up
            for (ConvProblem p : problems) {
                arrays.keepOnly(p.inputElements(), p.filterElements(), p.outputElements());
                float[] x = random(r, arrays.take(p.inputElements()));
                float[] w = random(r, arrays.take(p.filterElements()));
                float[] dy = random(r, arrays.take(p.outputElements()));
                long c0 = processCpuNanos();
                long t0 = System.nanoTime();
                cpu.forward(p, x, w, arrays.take(p.outputElements()));
                cpu.backwardData(p, dy, w, arrays.take(p.inputElements()));
                cpu.backwardFilter(p, x, dy, arrays.take(p.filterElements()));
                seconds[round] += (System.nanoTime() - t0) / 1e9;
                cpuSeconds[round] += (processCpuNanos() - c0) / 1e9;
                arrays.giveBackAll();
            }
        }
        System.out.printf(Locale.ROOT, "%nwhole model: %s, %d convolution layer(s) at batch %d, %s, forward + backward-data +"
                + " backward-filter, %.1f GFLOP%n", model.getFileName(), problems.size(), spec.batch(), spec.layout(), gflop);
        System.out.printf(Locale.ROOT, "%-44s %10s %10s %12s %12s%n", "what", "seconds", "GFLOP/s", "GFLOP/cpu-s",
                "x naive");
        System.out.printf(Locale.ROOT, "%-44s %10.2f %10.1f %12.1f %12.0f%n", "CPU backend, first run (JIT warming up)",
                seconds[0], gflop / seconds[0], gflop / cpuSeconds[0], naive / seconds[0]);
        System.out.printf(Locale.ROOT, "%-44s %10.2f %10.1f %12.1f %12.0f%n", "CPU backend, second run", seconds[1],
                gflop / seconds[1], gflop / cpuSeconds[1], naive / seconds[1]);
        System.out.printf(Locale.ROOT, "%-44s %10.1f %10.2f %12s %12s%n", "peer: naive loop (256 sampled elements/pass)",
                naive, gflop / naive, "-", "1");
    }

    /**
     * The CUDA backend's TFLOP/s on the same layers, from device time (CUDA events around the kernels), where a
     * device exists; otherwise the reason there is none.
     */
    private static void cudaRows(ConvProblem[] layers, int runs) throws Exception {
        try (ConvBackend cuda = dev.crashlab.conv.ConvBackends.open("cuda")) {
            java.util.Optional<String> why = cuda.unavailableReason();
            if (why.isPresent()) {
                System.out.printf(Locale.ROOT, "%nCUDA backend: not measured: %s%n", why.get());
                return;
            }
            System.out.printf(Locale.ROOT, "%nCUDA backend on %s, float32, device time, median of %d runs after a warm-up%n",
                    cuda.device(), runs);
            System.out.printf(Locale.ROOT, "%-28s %-16s %10s %10s%n", "layer", "pass", "ms", "TFLOP/s");
            for (ConvProblem p : layers) {
                SplittableRandom r = new SplittableRandom(7);
                float[] x = random(r, p.inputElements());
                float[] w = random(r, p.filterElements());
                float[] dy = random(r, p.outputElements());
                double tflop = 2.0 * p.macs() / 1e12;
                cudaRow(p, "forward", tflop, runs, () -> cuda.forward(p, x, w));
                cudaRow(p, "backward-data", tflop, runs, () -> cuda.backwardData(p, dy, w));
                cudaRow(p, "backward-filter", tflop, runs, () -> cuda.backwardFilter(p, x, dy));
            }
        }
    }

    private static void cudaRow(ConvProblem p, String pass, double tflop, int runs, Pass body) throws Exception {
        body.run(); // the first call creates the context and JIT-compiles the PTX
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            ms[i] = body.run().kernelMillis();
        }
        Arrays.sort(ms);
        double median = ms[runs / 2];
        System.out.printf(Locale.ROOT, "%-28s %-16s %10.3f %10.2f%n", p.name(), pass, median, tflop / (median / 1e3));
    }

    /** One row of the table: a layer's pass and how to run it. */
    private record Row(ConvProblem p, String pass, double gflop, Pass body) {}

    private interface Pass {
        ConvBackend.PassResult run() throws ConvBackend.BackendException;
    }

    /** CPU time one sample of a pass runs for: the process clock advances in scheduler ticks (10 ms here). */
    static final long SAMPLE_CPU_NANOS = 1_000_000_000L;

    /** CPU time of the peak round run right before each sample of a row. */
    static final long PEAK_ROUND_CPU_NANOS = 500_000_000L;

    /** CPU time of the memory-read round run right before each sample of a row, after its peak round. */
    static final long MEMORY_ROUND_CPU_NANOS = 250_000_000L;

    /** One row's figures: ms per run, GFLOP/s wall, GFLOP per CPU-second (medians), the peak rounds' median, ratios. */
    private record Measured(ConvProblem p, String pass, double ms, double wall, double perCpu, double peak,
            double lowRatio, double highRatio, double readRate, double bytes) {

        /**
         * The most GFLOP per CPU-second the row could reach if it only moved its operands and output once at the
         * read rate measured beside it, over the peak; above 1, memory could keep up with the peak.
         */
        double memoryRoof() {
            double gflop = 2.0 * p.macs() / 1e9;
            return gflop / (bytes / 1e9 / readRate) / peak;
        }
    }

    // Times one pass: untimed runs for at least 2 s (the JIT compiles the kernels), then `runs` samples, each as
    // many back-to-back runs as take at least SAMPLE_CPU_NANOS of process CPU time (one run of a layer takes
    // 10-100 ms, a few ticks of the process clock: timed alone it read 0, 1 or 2 ticks), each right after a peak
    // round on the same threads, so that the row and its peer are measured in the same minutes of the machine's life.
    private static Measured measure(ConvProblem p, String pass, double gflop, int runs, Pass body, PeakRounds peak)
            throws Exception {
        long warm = System.nanoTime();
        int warmRuns = 0;
        while (warmRuns < 3 || System.nanoTime() - warm < 2_000_000_000L) {
            body.run();
            warmRuns++;
        }
        double[] wall = new double[runs];
        double[] perCpu = new double[runs];
        double[] peaks = new double[runs];
        double[] ratios = new double[runs];
        double[] ms = new double[runs];
        double[] reads = new double[runs];
        for (int i = 0; i < runs; i++) {
            peaks[i] = peak.round();
            reads[i] = peak.memoryRound();
            long c0 = processCpuNanos();
            long t0 = System.nanoTime();
            int n = 0;
            long c;
            do {
                body.run();
                n++;
                c = processCpuNanos() - c0;
            } while (c < SAMPLE_CPU_NANOS);
            double seconds = (System.nanoTime() - t0) / 1e9;
            ms[i] = seconds * 1e3 / n;
            wall[i] = gflop * n / seconds;
            perCpu[i] = gflop * n / (c / 1e9);
            ratios[i] = perCpu[i] / peaks[i];
        }
        Arrays.sort(wall);
        Arrays.sort(ms);
        Arrays.sort(perCpu);
        Arrays.sort(peaks);
        Arrays.sort(ratios);
        Arrays.sort(reads);
        // what the pass must read and write at least once: each pass reads two of x, w and y (or their gradients)
        // and writes the third
        long elements = p.inputElements() + p.filterElements() + p.outputElements();
        return new Measured(p, pass, ms[runs / 2], wall[runs / 2], perCpu[runs / 2], peaks[runs / 2], ratios[0],
                ratios[runs - 1], reads[runs / 2], 4.0 * elements);
    }

    /**
     * Rounds of the Vector API peak loop on a pool of its own with the backend's thread count, each at least {@link
     * #PEAK_ROUND_CPU_NANOS} of process CPU time, for the rounds interleaved with a row's samples.
     */
    static final class PeakRounds implements AutoCloseable {
        private final ForkJoinPool pool;
        private final int threads;
        private int reps = 1000;

        PeakRounds(int threads) {
            this.threads = threads;
            this.pool = new ForkJoinPool(threads);
        }

        private float[] memory;

        /**
         * One round of {@link MemoryRead} on the same threads, at least {@link #MEMORY_ROUND_CPU_NANOS} of CPU time:
         * returns the GB read per CPU-second (each thread reads its share of the array, all of them at once).
         */
        double memoryRound() {
            if (memory == null) {
                memory = new float[MemoryRead.FLOATS];
                java.util.Arrays.fill(memory, 1f);
                // untimed passes, so the JIT has compiled the loop before the first round (a row's first round read
                // 0.7 GB per CPU-second interpreted, where the rest read 18-29)
                for (int warm = 0; warm < 3; warm++) {
                    if (MemoryRead.sum(memory, 0, memory.length) == 42.4242) {
                        System.out.print(""); // keeps the result live
                    }
                }
            }
            float[] a = memory;
            int share = a.length / threads;
            long bytes = 0;
            long c0 = processCpuNanos();
            double sink = 0;
            do {
                sink += pool.submit(() -> IntStream.range(0, threads).parallel()
                        .mapToDouble(t -> MemoryRead.sum(a, t * share, (t + 1) * share)).sum()).join();
                bytes += 4L * share * threads;
            } while (processCpuNanos() - c0 < MEMORY_ROUND_CPU_NANOS);
            long cpu = processCpuNanos() - c0;
            if (sink == 42.4242) {
                System.out.print(""); // keeps the result live
            }
            return bytes / 1e9 / (cpu / 1e9);
        }

        /** One round; returns its GFLOP per CPU-second. */
        double round() {
            while (true) {
                int n = reps;
                long c0 = processCpuNanos();
                double sink = pool.submit(() -> IntStream.range(0, threads).parallel()
                        .mapToDouble(t -> VectorPeak.run(n)).sum()).join();
                long cpu = processCpuNanos() - c0;
                if (sink == 42.4242) {
                    System.out.print(""); // keeps the result live
                }
                if (cpu < PEAK_ROUND_CPU_NANOS) {
                    reps = (int) Math.min(Integer.MAX_VALUE / 2, reps * Math.max(2, Math.ceil(1.2 * PEAK_ROUND_CPU_NANOS
                            / Math.max(cpu, 1e5))));
                    continue;
                }
                return VectorPeak.FLOP_PER_REP * n * threads / 1e9 / (cpu / 1e9);
            }
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    /**
     * The machine's load average over the last minute, as the system reports it, or "unknown": rows that touch memory
     * swing with the other processes' load (the register-only peak loop does not), so runs are compared by it.
     */
    static String loadAverage() {
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f", load);
    }

    /** A rate in GFLOP per wall-clock second, and per CPU-second of the whole process (immune to other load). */
    record Rate(double wall, double perCpuSecond) {}

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static ConvProblem problem(String name, int batch, int c, int hw, int k, int kernel, int stride, int pad) {
        return new ConvProblem(name, 2, batch, c, new int[] {hw, hw}, k, new int[] {kernel, kernel},
                new int[] {stride, stride}, new int[] {pad, pad}, new int[] {pad, pad}, new int[] {1, 1}, 1,
                ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
    }

    static float[] random(SplittableRandom r, long n) {
        return random(r, new float[(int) n]);
    }

    private static float[] random(SplittableRandom r, float[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return a;
    }

    /**
     * The FMA rate on {@code threads} threads, the better of two loops: {@link VectorPeak} (twelve independent
     * vector accumulators, nothing but FMAs) and a plain loop of eight dependent FMAs per element over a small
     * array in L1, which the JIT vectorises. Each round runs about half a second, so that the process's CPU time
     * (counted in scheduler ticks on some kernels) is measured over many ticks.
     */
    static Rate peakGflops(int threads) {
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            double bestWall = 0;
            double bestCpu = 0;
            for (int kind = 0; kind < 2; kind++) {
                int reps = 1000;
                double flopPerRep = kind == 0 ? VectorPeak.FLOP_PER_REP : 2.0 * 8 * 1024;
                for (int round = 0; round < 6; round++) {
                    int k = kind;
                    int n = reps;
                    long c0 = processCpuNanos();
                    long t0 = System.nanoTime();
                    double sink = pool.submit(() -> IntStream.range(0, threads).parallel()
                            .mapToDouble(t -> k == 0 ? VectorPeak.run(n) : fmaLoop(1024, n)).sum()).join();
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    double cpu = (processCpuNanos() - c0) / 1e9;
                    if (sink == 42.4242) {
                        System.out.print(""); // keeps the result live
                    }
                    double flop = flopPerRep * n * threads / 1e9;
                    if (seconds < 0.5) {
                        reps = (int) Math.min(Integer.MAX_VALUE / 2, reps * Math.max(2, Math.ceil(0.5 / Math.max(seconds, 1e-4))));
                        continue;
                    }
                    bestWall = Math.max(bestWall, flop / seconds);
                    bestCpu = Math.max(bestCpu, flop / Math.max(cpu, 1e-9));
                }
            }
            return new Rate(bestWall, bestCpu);
        } finally {
            pool.shutdownNow();
        }
    }

    private static double fmaLoop(int n, int reps) {
        float[] a = new float[n];
        Arrays.fill(a, 0.5f);
        float m = 0.999f;
        float c = 0.001f;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < n; i++) {
                float v = a[i];
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                v = Math.fma(v, m, c);
                a[i] = v;
            }
        }
        double s = 0;
        for (float v : a) {
            s += v;
        }
        return s;
    }
}
