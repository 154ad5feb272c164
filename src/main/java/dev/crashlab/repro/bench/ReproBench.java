package dev.crashlab.repro.bench;

import dev.crashlab.repro.ConvBackend;
import dev.crashlab.repro.ConvProblem;
import dev.crashlab.repro.CpuConvBackend;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Measures the CPU backend's GFLOP/s on three standard ResNet-50 layers next to the machine's FMA rate from a
 * simple vectorisable Java loop on every core, and the CUDA backend's TFLOP/s where a device exists, and prints
 * the tables {@code scripts/bench repro} shows.
 *
 * <p>NOTE: each figure is the median of timed runs after untimed warm-up runs (the JIT compiles the loops
 * first); a pass counts 2 flops per multiply-add ({@link ConvProblem#macs()}).
 */
public final class ReproBench {

    private ReproBench() {}

    /** Arguments: [batch] [runs]. */
    public static void main(String[] args) throws Exception {
        int batch = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int threads = Runtime.getRuntime().availableProcessors();
        Rate peak = peakGflops(threads);
        ConvProblem[] layers = {
            problem("conv2_x 3x3 64->64 56x56", batch, 64, 56, 64, 3, 1, 1),
            problem("1x1 256->64 56x56", batch, 256, 56, 64, 1, 1, 0),
            problem("conv1 7x7 3->64 224x224 s2", batch, 3, 224, 64, 7, 2, 3),
        };
        System.out.printf(Locale.ROOT, "%nrepro benchmark: CPU backend, batch %d, %d thread(s), float32, median of %d runs after 2 warm-ups%n",
                batch, threads, runs);
        System.out.printf(Locale.ROOT, "peer: simple vectorised Java FMA loop on %d thread(s): %.1f GFLOP/s wall, %.1f GFLOP per CPU-second%n",
                threads, peak.wall(), peak.perCpuSecond());
        System.out.println("(GFLOP per CPU-second divides by the CPU time this process got, so other load on the machine does not"
                + " skew the ratio; 'x peak' compares those)");
        System.out.printf(Locale.ROOT, "%-28s %-16s %10s %10s %10s %9s%n", "layer", "pass", "ms", "GFLOP/s", "GFLOP/cpu-s", "x peak");
        try (CpuConvBackend cpu = new CpuConvBackend(threads)) {
            for (ConvProblem p : layers) {
                SplittableRandom r = new SplittableRandom(7);
                float[] x = random(r, p.inputElements());
                float[] w = random(r, p.filterElements());
                float[] dy = random(r, p.outputElements());
                double gflop = 2.0 * p.macs() / 1e9;
                row(p, "forward", gflop, peak, runs, () -> cpu.forward(p, x, w));
                row(p, "backward-data", gflop, peak, runs, () -> cpu.backwardData(p, dy, w));
                row(p, "backward-filter", gflop, peak, runs, () -> cpu.backwardFilter(p, x, dy));
            }
        }
        cudaRows(layers, runs);
    }

    /**
     * The CUDA backend's TFLOP/s on the same layers, from device time (CUDA events around the kernels), where a
     * device exists; otherwise the reason there is none.
     */
    private static void cudaRows(ConvProblem[] layers, int runs) throws Exception {
        try (ConvBackend cuda = dev.crashlab.repro.ConvBackends.open("cuda")) {
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

    private interface Pass {
        ConvBackend.PassResult run() throws ConvBackend.BackendException;
    }

    private static void row(ConvProblem p, String pass, double gflop, Rate peak, int runs, Pass body) throws Exception {
        for (int i = 0; i < 2; i++) {
            body.run();
        }
        double[] wall = new double[runs];
        double[] cpu = new double[runs];
        for (int i = 0; i < runs; i++) {
            long c0 = processCpuNanos();
            long t0 = System.nanoTime();
            body.run();
            wall[i] = (System.nanoTime() - t0) / 1e9;
            cpu[i] = (processCpuNanos() - c0) / 1e9;
        }
        Arrays.sort(wall);
        Arrays.sort(cpu);
        Rate r = new Rate(gflop / wall[runs / 2], gflop / cpu[runs / 2]);
        System.out.printf(Locale.ROOT, "%-28s %-16s %10.1f %10.2f %10.2f %9.3f%n", p.name(), pass, wall[runs / 2] * 1e3,
                r.wall(), r.perCpuSecond(), r.perCpuSecond() / peak.perCpuSecond());
    }

    /** A rate in GFLOP per wall-clock second, and per CPU-second of the whole process (immune to other load). */
    record Rate(double wall, double perCpuSecond) {}

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static ConvProblem problem(String name, int batch, int c, int hw, int k, int kernel, int stride, int pad) {
        return new ConvProblem(name, 2, batch, c, new int[] {hw, hw}, k, new int[] {kernel, kernel},
                new int[] {stride, stride}, new int[] {pad, pad}, new int[] {pad, pad}, new int[] {1, 1}, 1,
                ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW, false);
    }

    private static float[] random(SplittableRandom r, long n) {
        float[] a = new float[(int) n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return a;
    }

    /**
     * The FMA rate of a simple loop on {@code threads} threads: each thread runs eight fused multiply-adds per
     * element over a small array that stays in the L1 cache, which the JIT turns into vector FMA instructions.
     */
    static Rate peakGflops(int threads) {
        int n = 1024;
        int reps = 20_000;
        double flop = 2.0 * 8 * n * (double) reps * threads / 1e9;
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            double bestWall = 0;
            double bestCpu = 0;
            for (int round = 0; round < 5; round++) {
                long c0 = processCpuNanos();
                long t0 = System.nanoTime();
                double sink = pool.submit(() -> IntStream.range(0, threads).parallel()
                        .mapToDouble(t -> fmaLoop(n, reps)).sum()).join();
                double seconds = (System.nanoTime() - t0) / 1e9;
                double cpu = (processCpuNanos() - c0) / 1e9;
                if (sink == 42.4242) {
                    System.out.print(""); // keeps the result live
                }
                bestWall = Math.max(bestWall, flop / seconds);
                bestCpu = Math.max(bestCpu, flop / cpu);
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
