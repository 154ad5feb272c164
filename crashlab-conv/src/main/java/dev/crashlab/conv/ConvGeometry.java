package dev.crashlab.conv;

/**
 * Normalises a {@link ConvProblem} to the plain (not transposed) rank-3 convolution that computes it, so the
 * CPU backend and the oracle have one loop nest: rank 1 and 2 become depth and height of 1, and a transposed
 * layer becomes the convolution it transposes (its output is that convolution's input).
 *
 * <p>NOTE: for a transposed problem, the problem's forward pass is this geometry's backward-data pass, its
 * backward-data pass is this forward pass, and its filter gradient is this geometry's filter gradient with
 * x and dy swapped. The filter is (cOut, cIn/groups, kd, kh, kw) in both cases, which is how
 * {@link ConvBackend} lays out a transposed layer's (C, K/groups, kernel...) filter.
 */
record ConvGeometry(int n, int cIn, int[] in, int cOut, int[] out, int[] k, int[] s, int[] pad, int[] dil, int groups) {

    static ConvGeometry of(ConvProblem p) {
        int[] pin = spread(p.inDims(), 1);
        int[] pout = spread(p.outDims(), 1);
        int[] k = spread(p.kernel(), 1);
        int[] s = spread(p.stride(), 1);
        int[] pad = spread(p.padBegin(), 0);
        int[] dil = spread(p.dilation(), 1);
        return p.transposed()
                ? new ConvGeometry(p.batch(), p.outChannels(), pout, p.inChannels(), pin, k, s, pad, dil, p.groups())
                : new ConvGeometry(p.batch(), p.inChannels(), pin, p.outChannels(), pout, k, s, pad, dil, p.groups());
    }

    /** Right-aligns a rank-1..3 array into three entries, filling the leading ones. */
    private static int[] spread(int[] v, int fill) {
        int[] r = {fill, fill, fill};
        System.arraycopy(v, 0, r, 3 - v.length, v.length);
        return r;
    }

    int inSpatial() {
        return in[0] * in[1] * in[2];
    }

    int outSpatial() {
        return out[0] * out[1] * out[2];
    }

    int kernelVolume() {
        return k[0] * k[1] * k[2];
    }

    int cInPerGroup() {
        return cIn / groups;
    }

    int cOutPerGroup() {
        return cOut / groups;
    }
}
