package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvProblem;

/**
 * Computes a layer's three passes by visiting every (input pixel, tap, output pixel) link once, in double,
 * straight from the layer's own definition (a transposed layer's links run the other way): the simple host
 * reference the GPU tests compare with. It also returns, per output element, the sum of the magnitudes of
 * the products that formed it, from which a rounding-error bound follows.
 */
final class NaiveConvolution {

    /** A pass's values and the sums of |product| behind each. */
    record Reference(double[] values, double[] magnitudes, long terms) {}

    private interface Link {
        void visit(long xIndex, long yIndex, long wIndex);
    }

    private NaiveConvolution() {
    }

    static Reference forward(ConvProblem p, float[] x, float[] w) {
        double[] y = new double[(int) p.outputElements()];
        double[] mag = new double[y.length];
        links(p, (xi, yi, wi) -> {
            double v = (double) x[(int) xi] * w[(int) wi];
            y[(int) yi] += v;
            mag[(int) yi] += Math.abs(v);
        });
        return new Reference(y, mag, terms(p));
    }

    static Reference backwardData(ConvProblem p, float[] dy, float[] w) {
        double[] dx = new double[(int) p.inputElements()];
        double[] mag = new double[dx.length];
        links(p, (xi, yi, wi) -> {
            double v = (double) dy[(int) yi] * w[(int) wi];
            dx[(int) xi] += v;
            mag[(int) xi] += Math.abs(v);
        });
        return new Reference(dx, mag, terms(p));
    }

    static Reference backwardFilter(ConvProblem p, float[] x, float[] dy) {
        double[] dw = new double[(int) p.filterElements()];
        double[] mag = new double[dw.length];
        links(p, (xi, yi, wi) -> {
            double v = (double) x[(int) xi] * dy[(int) yi];
            dw[(int) wi] += v;
            mag[(int) wi] += Math.abs(v);
        });
        return new Reference(dw, mag, terms(p));
    }

    /** The longest sum any output element of any pass can have (a bound on the number of roundings). */
    private static long terms(ConvProblem p) {
        long taps = 1;
        for (int k : p.kernel()) {
            taps *= k;
        }
        long perGroup = Math.max(p.inChannels(), p.outChannels()) / p.groups();
        long pixels = (long) p.batch() * Math.max(volume(p.inDims()), volume(p.outDims()));
        return Math.max(perGroup * taps, pixels);
    }

    private static long volume(int[] d) {
        long v = 1;
        for (int x : d) {
            v *= x;
        }
        return v;
    }

    /**
     * Visits every link. Direct: output pixel o reads input pixel o * s - pb + r * d. Transposed: input pixel
     * i writes output pixel i * s - pb + r * d. Filters: direct (K, C/g, kernel), transposed (C, K/g, kernel).
     */
    private static void links(ConvProblem p, Link link) {
        int rank = p.rank();
        int[] in = p.inDims();
        int[] out = p.outDims();
        int[] k = p.kernel();
        int[] s = p.stride();
        int[] pb = p.padBegin();
        int[] d = p.dilation();
        int cg = p.inChannels() / p.groups();
        int kg = p.outChannels() / p.groups();
        long inPlane = volume(in);
        long outPlane = volume(out);
        long taps = volume(k);
        int[] from = new int[rank];
        int[] tap = new int[rank];
        int[] to = new int[rank];
        // the "from" pixel walks the side whose coordinate determines the other: output for direct, input for transposed
        int[] fromDims = p.transposed() ? in : out;
        int[] toDims = p.transposed() ? out : in;
        long fromCount = volume(fromDims);
        for (int n = 0; n < p.batch(); n++) {
            for (int g = 0; g < p.groups(); g++) {
                for (int ci = 0; ci < cg; ci++) {
                    int c = g * cg + ci;
                    for (int ki = 0; ki < kg; ki++) {
                        int kk = g * kg + ki;
                        for (long f = 0; f < fromCount; f++) {
                            unflatten(f, fromDims, from);
                            for (long t = 0; t < taps; t++) {
                                unflatten(t, k, tap);
                                boolean inside = true;
                                for (int a = 0; a < rank; a++) {
                                    to[a] = from[a] * s[a] - pb[a] + tap[a] * d[a];
                                    inside &= to[a] >= 0 && to[a] < toDims[a];
                                }
                                if (!inside) {
                                    continue;
                                }
                                long inPixel = p.transposed() ? flatten(from, in) : flatten(to, in);
                                long outPixel = p.transposed() ? flatten(to, out) : flatten(from, out);
                                long xi = ((long) n * p.inChannels() + c) * inPlane + inPixel;
                                long yi = ((long) n * p.outChannels() + kk) * outPlane + outPixel;
                                long wi = p.transposed()
                                        ? ((long) c * kg + ki) * taps + t
                                        : ((long) kk * cg + ci) * taps + t;
                                link.visit(xi, yi, wi);
                            }
                        }
                    }
                }
            }
        }
    }

    private static void unflatten(long index, int[] dims, int[] into) {
        for (int a = dims.length - 1; a >= 0; a--) {
            into[a] = (int) (index % dims[a]);
            index /= dims[a];
        }
    }

    private static long flatten(int[] coordinate, int[] dims) {
        long index = 0;
        for (int a = 0; a < dims.length; a++) {
            index = index * dims[a] + coordinate[a];
        }
        return index;
    }
}
