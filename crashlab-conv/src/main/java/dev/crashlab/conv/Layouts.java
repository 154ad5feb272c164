package dev.crashlab.conv;

/**
 * Explicit conversions between the channels-last layout (N, spatial..., C) a reporter's NHWC framework holds its
 * activations in and the channels-first one (N, C, spatial...) the backends compute in.
 */
public final class Layouts {

    private Layouts() {}

    /** A channels-first copy of {@code a}, which holds {@code n} images of {@code spatial} positions x {@code c} channels. */
    public static float[] toChannelsFirst(float[] a, int n, int c, int spatial) {
        float[] r = new float[a.length];
        for (int b = 0; b < n; b++) {
            int base = b * c * spatial;
            for (int s = 0; s < spatial; s++) {
                int src = base + s * c;
                for (int ch = 0; ch < c; ch++) {
                    r[base + ch * spatial + s] = a[src + ch];
                }
            }
        }
        return r;
    }

    /** A channels-last copy of {@code a}, which holds {@code n} images of {@code c} channels x {@code spatial} positions. */
    public static float[] toChannelsLast(float[] a, int n, int c, int spatial) {
        return toChannelsLast(a, n, c, spatial, new float[a.length]);
    }

    /** {@link #toChannelsLast(float[], int, int, int)} into {@code r}, which is overwritten and returned. */
    public static float[] toChannelsLast(float[] a, int n, int c, int spatial, float[] r) {
        for (int b = 0; b < n; b++) {
            int base = b * c * spatial;
            for (int ch = 0; ch < c; ch++) {
                int src = base + ch * spatial;
                for (int s = 0; s < spatial; s++) {
                    r[base + s * c + ch] = a[src + s];
                }
            }
        }
        return r;
    }
}
