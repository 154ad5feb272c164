package dev.crashlab.repro.bench;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The CPU backend of this build against the same package compiled from another revision, both loaded in one JVM and
 * run in alternating half-second samples on the same rows as {@link ReproBench}: the ratio of each pair of samples
 * next to each other cancels the machine's slow swings (on our shared 2-core machine the same code read 0.44 and 0.62
 * of the peak in two runs a minute apart), which comparing two separate bench runs cannot.
 *
 * <p>NOTE: the other revision's {@code dev.crashlab.repro} classes (the package itself, not its sub-packages) are
 * loaded child-first from a folder {@code scripts/bench repro-ab} compiles them into; everything else, including this
 * class, comes from this build. The two sides share no state: each has its own backend, pool and arrays, called
 * through the public {@code ConvBackend} methods by reflection (their classes differ by loader). Outputs are compared
 * too, so a faster side that computes something else is shown as such.
 */
public final class ReproAB {

    private ReproAB() {}

    /** Half a second of process CPU time per sample. */
    static final long SAMPLE_CPU_NANOS = 500_000_000L;

    /** Loads the {@code dev.crashlab.repro} package (not its sub-packages) from its own folder first. */
    private static final class OtherRevision extends URLClassLoader {
        OtherRevision(Path classes, ClassLoader parent) throws Exception {
            super(new URL[] {classes.toUri().toURL()}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                boolean ours = name.startsWith("dev.crashlab.repro.") && name.indexOf('.', "dev.crashlab.repro.".length()) < 0;
                if (!ours) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = super.loadClass(name, false);
                    }
                }
                return c;
            }
        }
    }

    /** One side: a backend from one class loader, a layer's problem and its arrays, and the pass to run. */
    private static final class Side {
        final Object backend;
        final Object problem;
        final Method pass;
        final float[] a;
        final float[] b;
        final float[] out;

        Side(ClassLoader loader, int threads, int[] shape, int batch, String which, long seed) throws Exception {
            Class<?> problemClass = loader.loadClass("dev.crashlab.repro.ConvProblem");
            Class<?> dtype = loader.loadClass("dev.crashlab.repro.ConvProblem$DType");
            Class<?> layout = loader.loadClass("dev.crashlab.repro.ConvProblem$Layout");
            Constructor<?> make = problemClass.getConstructors()[0];
            int k = shape[3];
            int pad = shape[5];
            problem = make.newInstance("ab", 2, batch, shape[0], new int[] {shape[1], shape[1]}, shape[2],
                    new int[] {k, k}, new int[] {shape[4], shape[4]}, new int[] {pad, pad}, new int[] {pad, pad},
                    new int[] {1, 1}, 1, enumValue(dtype, "FLOAT32"), enumValue(layout, "NCHW"), false);
            Class<?> backendClass = loader.loadClass("dev.crashlab.repro.CpuConvBackend");
            backend = backendClass.getConstructor(int.class).newInstance(threads);
            long x = (long) problemClass.getMethod("inputElements").invoke(problem);
            long w = (long) problemClass.getMethod("filterElements").invoke(problem);
            long y = (long) problemClass.getMethod("outputElements").invoke(problem);
            SplittableRandom r = new SplittableRandom(seed);
            switch (which) {
                case "forward" -> {
                    a = random(r, x);
                    b = random(r, w);
                    out = new float[(int) y];
                }
                case "backward-data" -> {
                    a = random(r, y);
                    b = random(r, w);
                    out = new float[(int) x];
                }
                default -> {
                    a = random(r, x);
                    b = random(r, y);
                    out = new float[(int) w];
                }
            }
            String method = switch (which) {
                case "forward" -> "forward";
                case "backward-data" -> "backwardData";
                default -> "backwardFilter";
            };
            pass = backendClass.getMethod(method, problemClass, float[].class, float[].class, float[].class);
        }

        void run() throws Exception {
            pass.invoke(backend, problem, a, b, out);
        }

        /** GFLOP per process CPU-second over at least {@code nanos} of process CPU time. */
        double sample(double gflop, long nanos) throws Exception {
            long c0 = ReproBench.processCpuNanos();
            int n = 0;
            long c;
            do {
                run();
                n++;
                c = ReproBench.processCpuNanos() - c0;
            } while (c < nanos);
            return gflop * n / (c / 1e9);
        }

        void close() throws Exception {
            ((AutoCloseable) backend).close();
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static Object enumValue(Class<?> type, String name) {
            return Enum.valueOf((Class) type, name);
        }
    }

    /** Arguments: the other revision's compiled classes, its name, [rows filter, as crashlab.bench.rows] [pairs] [batch]. */
    public static void main(String[] args) throws Exception {
        Path classes = Path.of(args[0]);
        String revision = args[1];
        List<String> filter = args.length > 2 && !args[2].isBlank() ? Arrays.asList(args[2].split(",")) : List.of();
        int pairs = args.length > 3 ? Integer.parseInt(args[3]) : 11;
        int batch = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        int threads = Runtime.getRuntime().availableProcessors();
        ClassLoader here = ReproAB.class.getClassLoader();
        ClassLoader there = new OtherRevision(classes, here);
        // the layers of ReproBench: {in channels, size, out channels, kernel, stride, padding}
        String[] names = {"conv2_x 3x3 64->64 56x56", "1x1 256->64 56x56", "conv1 7x7 3->64 224x224 s2"};
        int[][] shapes = {{64, 56, 64, 3, 1, 1}, {256, 56, 64, 1, 1, 0}, {3, 224, 64, 7, 2, 3}};
        List<String> lines = new ArrayList<>();
        for (int l = 0; l < names.length; l++) {
            for (String which : List.of("forward", "backward-data", "backward-filter")) {
                String row = names[l] + " " + which;
                if (!filter.isEmpty() && filter.stream().noneMatch(row::contains)) {
                    continue;
                }
                Side a = new Side(there, threads, shapes[l], batch, which, 7);
                Side b = new Side(here, threads, shapes[l], batch, which, 7);
                int[] s = shapes[l];
                int out = (s[1] + 2 * s[5] - s[3]) / s[4] + 1;
                double gflop = 2.0 * batch * s[0] * s[2] * s[3] * s[3] * out * out / 1e9;
                for (int warm = 0; warm < 2; warm++) {
                    a.sample(gflop, SAMPLE_CPU_NANOS);
                    b.sample(gflop, SAMPLE_CPU_NANOS);
                }
                double differs = 0;
                double largest = 0;
                for (int i = 0; i < a.out.length; i++) {
                    differs = Math.max(differs, Math.abs(a.out[i] - b.out[i]));
                    largest = Math.max(largest, Math.abs(a.out[i]));
                }
                double[] ra = new double[pairs];
                double[] rb = new double[pairs];
                double[] ratio = new double[pairs];
                for (int i = 0; i < pairs; i++) {
                    // alternate which side goes first, so that neither always follows the other's cache footprint
                    boolean aFirst = i % 2 == 0;
                    double first = (aFirst ? a : b).sample(gflop, SAMPLE_CPU_NANOS);
                    double second = (aFirst ? b : a).sample(gflop, SAMPLE_CPU_NANOS);
                    ra[i] = aFirst ? first : second;
                    rb[i] = aFirst ? second : first;
                    ratio[i] = rb[i] / ra[i];
                }
                a.close();
                b.close();
                Arrays.sort(ra);
                Arrays.sort(rb);
                Arrays.sort(ratio);
                lines.add(String.format(Locale.ROOT, "%-28s %-16s %10.1f %10.1f %10.3f %6.3f-%-6.3f %10.1e", names[l], which,
                        ra[pairs / 2], rb[pairs / 2], ratio[pairs / 2], ratio[pairs / 4], ratio[3 * pairs / 4],
                        largest == 0 ? differs : differs / largest));
                System.err.println("measured " + row);
            }
        }
        System.out.printf(Locale.ROOT, "%nrepro A/B: the CPU backend of this build against %s, in one JVM, batch %d, %d thread(s),"
                + " float32; %d pairs of samples of at least %.1f process CPU-second each, alternating which side goes first,"
                + " after 2 untimed pairs; load average %s%n", revision, batch, threads, pairs, SAMPLE_CPU_NANOS / 1e9,
                ReproBench.loadAverage());
        System.out.println("(GFLOP per CPU-second, medians; 'this/other' is the median of the pairs' ratios and 'IQR' its"
                + " middle half: a change is real where the whole IQR is on one side of 1; 'differs' is the largest"
                + " elementwise difference of the two outputs over their largest magnitude)");
        System.out.printf(Locale.ROOT, "%-28s %-16s %10s %10s %10s %13s %10s%n", "layer", "pass", "other", "this",
                "this/other", "IQR", "differs");
        lines.forEach(System.out::println);
    }

    private static float[] random(SplittableRandom r, long n) {
        float[] a = new float[(int) n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return a;
    }
}
