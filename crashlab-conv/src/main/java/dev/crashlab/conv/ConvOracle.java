package dev.crashlab.conv;

/**
 * Computes single elements of a convolution's three passes directly from their definition, in double
 * precision: the oracle that sampled outputs of every backend are checked against.
 *
 * <p>NOTE: each method also returns the sum of the absolute values of the terms it added, which bounds the
 * rounding error a float32 accumulation can make and so sets the tolerance of the check.
 */
public final class ConvOracle {

    /** An element's exact value and the sum of its terms' magnitudes. */
    public record Value(double value, double magnitude) {}

    private final ConvProblem problem;
    private final ConvGeometry g;
    /** Whether activations (input, output and their gradients) are held channels-last (an NHWC problem). */
    private final boolean channelsLast;

    public ConvOracle(ConvProblem problem) {
        this.problem = problem;
        this.g = ConvGeometry.of(problem);
        this.channelsLast = problem.layout() == ConvProblem.Layout.NHWC;
    }

    /** Element {@code index} of the problem's forward output. */
    public Value forward(float[] x, float[] w, long index) {
        return problem.transposed() ? geometryBackwardData(x, w, index) : geometryForward(x, w, index);
    }

    /** Element {@code index} of the problem's input gradient. */
    public Value backwardData(float[] dy, float[] w, long index) {
        return problem.transposed() ? geometryForward(dy, w, index) : geometryBackwardData(dy, w, index);
    }

    /** Element {@code index} of the problem's filter gradient. */
    public Value backwardFilter(float[] x, float[] dy, long index) {
        return problem.transposed() ? geometryBackwardFilter(dy, x, index) : geometryBackwardFilter(x, dy, index);
    }

    private Value geometryForward(float[] x, float[] w, long index) {
        int os = g.outSpatial();
        int n;
        int ko;
        int o;
        if (channelsLast) {
            ko = (int) (index % g.cOut());
            o = (int) (index / g.cOut() % os);
            n = (int) (index / g.cOut() / os);
        } else {
            n = (int) (index / ((long) g.cOut() * os));
            ko = (int) (index / os % g.cOut());
            o = (int) (index % os);
        }
        int od = o / (g.out()[1] * g.out()[2]);
        int oh = o / g.out()[2] % g.out()[1];
        int ow = o % g.out()[2];
        int cpg = g.cInPerGroup();
        int c0 = ko / g.cOutPerGroup() * cpg;
        double sum = 0;
        double mag = 0;
        for (int cc = 0; cc < cpg; cc++) {
            for (int kd = 0; kd < g.k()[0]; kd++) {
                int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                for (int kh = 0; kh < g.k()[1]; kh++) {
                    int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                    for (int kw = 0; kw < g.k()[2]; kw++) {
                        int iw = ow * g.s()[2] - g.pad()[2] + kw * g.dil()[2];
                        if (!inside(id, ih, iw, g.in())) {
                            continue;
                        }
                        double t = (double) x[inIndex(n, c0 + cc, id, ih, iw)] * w[filterIndex(ko, cc, kd, kh, kw)];
                        sum += t;
                        mag += Math.abs(t);
                    }
                }
            }
        }
        return new Value(sum, mag);
    }

    private Value geometryBackwardData(float[] dy, float[] w, long index) {
        int is = g.inSpatial();
        int n;
        int c;
        int i;
        if (channelsLast) {
            c = (int) (index % g.cIn());
            i = (int) (index / g.cIn() % is);
            n = (int) (index / g.cIn() / is);
        } else {
            n = (int) (index / ((long) g.cIn() * is));
            c = (int) (index / is % g.cIn());
            i = (int) (index % is);
        }
        int[] pos = {i / (g.in()[1] * g.in()[2]), i / g.in()[2] % g.in()[1], i % g.in()[2]};
        int group = c / g.cInPerGroup();
        int cc = c % g.cInPerGroup();
        double sum = 0;
        double mag = 0;
        for (int kk = 0; kk < g.cOutPerGroup(); kk++) {
            int ko = group * g.cOutPerGroup() + kk;
            for (int kd = 0; kd < g.k()[0]; kd++) {
                int od = outPos(pos[0], kd, 0);
                for (int kh = 0; od >= 0 && kh < g.k()[1]; kh++) {
                    int oh = outPos(pos[1], kh, 1);
                    for (int kw = 0; oh >= 0 && kw < g.k()[2]; kw++) {
                        int ow = outPos(pos[2], kw, 2);
                        if (ow < 0) {
                            continue;
                        }
                        double t = (double) dy[outIndex(n, ko, od, oh, ow)] * w[filterIndex(ko, cc, kd, kh, kw)];
                        sum += t;
                        mag += Math.abs(t);
                    }
                }
            }
        }
        return new Value(sum, mag);
    }

    // the output position that reads input position i through kernel tap kpos, or -1 where none does
    private int outPos(int i, int kpos, int d) {
        int num = i + g.pad()[d] - kpos * g.dil()[d];
        if (num < 0 || num % g.s()[d] != 0) {
            return -1;
        }
        int o = num / g.s()[d];
        return o < g.out()[d] ? o : -1;
    }

    private Value geometryBackwardFilter(float[] x, float[] dy, long index) {
        int kv = g.kernelVolume();
        int cpg = g.cInPerGroup();
        int ko = (int) (index / ((long) cpg * kv));
        int cc = (int) (index / kv % cpg);
        int kpos = (int) (index % kv);
        int kd = kpos / (g.k()[1] * g.k()[2]);
        int kh = kpos / g.k()[2] % g.k()[1];
        int kw = kpos % g.k()[2];
        int c = ko / g.cOutPerGroup() * cpg + cc;
        double sum = 0;
        double mag = 0;
        for (int n = 0; n < g.n(); n++) {
            for (int od = 0; od < g.out()[0]; od++) {
                int id = od * g.s()[0] - g.pad()[0] + kd * g.dil()[0];
                for (int oh = 0; oh < g.out()[1]; oh++) {
                    int ih = oh * g.s()[1] - g.pad()[1] + kh * g.dil()[1];
                    for (int ow = 0; ow < g.out()[2]; ow++) {
                        int iw = ow * g.s()[2] - g.pad()[2] + kw * g.dil()[2];
                        if (!inside(id, ih, iw, g.in())) {
                            continue;
                        }
                        double t = (double) x[inIndex(n, c, id, ih, iw)] * dy[outIndex(n, ko, od, oh, ow)];
                        sum += t;
                        mag += Math.abs(t);
                    }
                }
            }
        }
        return new Value(sum, mag);
    }

    private static boolean inside(int d, int h, int w, int[] dims) {
        return d >= 0 && d < dims[0] && h >= 0 && h < dims[1] && w >= 0 && w < dims[2];
    }

    private int inIndex(int n, int c, int d, int h, int w) {
        if (channelsLast) {
            return (((n * g.in()[0] + d) * g.in()[1] + h) * g.in()[2] + w) * g.cIn() + c;
        }
        return (((n * g.cIn() + c) * g.in()[0] + d) * g.in()[1] + h) * g.in()[2] + w;
    }

    private int outIndex(int n, int k, int d, int h, int w) {
        if (channelsLast) {
            return (((n * g.out()[0] + d) * g.out()[1] + h) * g.out()[2] + w) * g.cOut() + k;
        }
        return (((n * g.cOut() + k) * g.out()[0] + d) * g.out()[1] + h) * g.out()[2] + w;
    }

    private int filterIndex(int k, int cc, int d, int h, int w) {
        return (((k * g.cInPerGroup() + cc) * g.k()[0] + d) * g.k()[1] + h) * g.k()[2] + w;
    }
}
