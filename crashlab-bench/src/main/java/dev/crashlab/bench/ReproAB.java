package dev.crashlab.bench;

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
        final double gflop;
        final float[] a;
        final float[] b;
        final float[] out;

        Side(ClassLoader loader, int threads, ReproBench.Layer l, int batch, String which, long seed) throws Exception {
            Class<?> problemClass = loader.loadClass("dev.crashlab.conv.ConvProblem");
            Class<?> dtype = loader.loadClass("dev.crashlab.conv.ConvProblem$DType");
            Class<?> layout = loader.loadClass("dev.crashlab.conv.ConvProblem$Layout");
            problem = problemClass.getConstructors()[0].newInstance(l.name(), 2, batch, l.in(),
                    new int[] {l.size(), l.size()}, l.out(), new int[] {l.kernel(), l.kernel()},
                    new int[] {l.stride(), l.stride()}, new int[] {l.pad(), l.pad()}, new int[] {l.pad(), l.pad()},
                    new int[] {1, 1}, 1, enumValue(dtype, "FLOAT32"), enumValue(layout, "NCHW"), false);
            gflop = 2.0 * (long) problemClass.getMethod("macs").invoke(problem) / 1e9;
            Class<?> backendClass = loader.loadClass("dev.crashlab.conv.CpuConvBackend");
            backend = backendClass.getConstructor(int.class).newInstance(threads);
            long x = (long) problemClass.getMethod("inputElements").invoke(problem);
            long w = (long) problemClass.getMethod("filterElements").invoke(problem);
            long y = (long) problemClass.getMethod("outputElements").invoke(problem);
            // operands and output in the order ConvBackend's methods take them: (x, w) -> y, (dy, w) -> dx, (x, dy) -> dw
            long[] sizes = switch (which) {
                case "forward" -> new long[] {x, w, y};
                case "backward-data" -> new long[] {y, w, x};
                default -> new long[] {x, y, w};
            };
            SplittableRandom r = new SplittableRandom(seed);
            a = ReproBench.random(r, sizes[0]);
            b = ReproBench.random(r, sizes[1]);
            out = new float[(int) sizes[2]];
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
        double sample(long nanos) throws Exception {
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

    /**
     * Arguments: the other revision's compiled classes, its name, [pairs] [batch]; the rows are those {@link
     * ReproBench#selected} takes (system property {@code crashlab.bench.rows}).
     */
    public static void main(String[] args) throws Exception {
        Path classes = Path.of(args[0]);
        String revision = args[1];
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 11;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        int threads = Runtime.getRuntime().availableProcessors();
        ClassLoader here = ReproAB.class.getClassLoader();
        ClassLoader there = new OtherRevision(classes, here);
        List<String> lines = new ArrayList<>();
        for (ReproBench.Layer l : ReproBench.LAYERS) {
            for (String which : ReproBench.PASSES) {
                String row = l.name() + " " + which;
                if (!ReproBench.selected(row)) {
                    continue;
                }
                Side a = new Side(there, threads, l, batch, which, 7);
                Side b = new Side(here, threads, l, batch, which, 7);
                for (int warm = 0; warm < 2; warm++) {
                    a.sample(SAMPLE_CPU_NANOS);
                    b.sample(SAMPLE_CPU_NANOS);
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
                    double first = (aFirst ? a : b).sample(SAMPLE_CPU_NANOS);
                    double second = (aFirst ? b : a).sample(SAMPLE_CPU_NANOS);
                    ra[i] = aFirst ? first : second;
                    rb[i] = aFirst ? second : first;
                    ratio[i] = rb[i] / ra[i];
                }
                a.close();
                b.close();
                Arrays.sort(ra);
                Arrays.sort(rb);
                Arrays.sort(ratio);
                lines.add(String.format(Locale.ROOT, "%-28s %-16s %10.1f %10.1f %10.3f %6.3f-%-6.3f %10.1e", l.name(), which,
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
}
