package dev.crashlab.conv;

import java.util.SplittableRandom;

/**
 * Times the naive loop (the definition, one output element at a time, in double precision: {@link ConvOracle})
 * on a sample of a pass's output elements and scales it to the whole pass: the peer of the CPU backend in
 * {@code scripts/bench repro}, where running the naive loop over a whole model would take hours.
 */
public final class NaiveConvTiming {

    private NaiveConvTiming() {}

    /** Estimated seconds of the naive loop for all three passes of {@code p}, from {@code samples} elements each. */
    public static double estimatedSeconds(ConvProblem p, int samples, SplittableRandom random) {
        ConvOracle oracle = new ConvOracle(p);
        float[] x = tensor(random, p.inputElements());
        float[] w = tensor(random, p.filterElements());
        float[] dy = tensor(random, p.outputElements());
        double sink = 0;
        double seconds = 0;
        for (int pass = 0; pass < 3; pass++) {
            long elements = pass == 0 ? p.outputElements() : pass == 1 ? p.inputElements() : p.filterElements();
            int n = (int) Math.min(samples, elements);
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long index = random.nextLong(elements);
                sink += switch (pass) {
                    case 0 -> oracle.forward(x, w, index).value();
                    case 1 -> oracle.backwardData(dy, w, index).value();
                    default -> oracle.backwardFilter(x, dy, index).value();
                };
            }
            seconds += (System.nanoTime() - t0) / 1e9 * elements / n;
        }
        if (sink == 42.4242) {
            System.out.print(""); // keeps the sums live
        }
        return seconds;
    }

    private static float[] tensor(SplittableRandom r, long n) {
        float[] a = new float[(int) n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return a;
    }
}
