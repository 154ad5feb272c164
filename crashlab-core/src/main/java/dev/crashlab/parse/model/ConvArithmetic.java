package dev.crashlab.parse.model;

/**
 * Computes the spatial output length of convolutions, transposed convolutions and pooling the way Keras
 * does, so shapes can be carried through a model graph or checked against a summary.
 *
 * <p>NOTE: every method returns null when an operand is unknown (null) or the padding mode is not one it
 * knows, never a guess.
 */
final class ConvArithmetic {

    private ConvArithmetic() {}

    /** The effective kernel extent with dilation: {@code d * (k - 1) + 1}. */
    static long span(int kernel, int dilation) {
        return (long) dilation * (kernel - 1) + 1;
    }

    /** Output length of a convolution (Keras {@code conv_output_length}). */
    static Integer conv(Integer in, int kernel, int stride, int dilation, String padding) {
        if (in == null || stride < 1 || padding == null) {
            return null;
        }
        long k = span(kernel, dilation);
        long len = switch (padding) {
            case "valid" -> in - k + 1;
            case "same", "causal" -> in;
            case "full" -> in + k - 1;
            default -> Long.MIN_VALUE;
        };
        if (len == Long.MIN_VALUE) {
            return null;
        }
        return clamp(Math.floorDiv(len + stride - 1, stride));
    }

    /**
     * Output length of a transposed convolution (Keras {@code deconv_output_length}); {@code outputPadding}
     * may be null (Keras then picks the smallest length that fits).
     */
    static Integer transposed(Integer in, int kernel, int stride, int dilation, String padding, Integer outputPadding) {
        if (in == null || stride < 1 || padding == null) {
            return null;
        }
        long k = span(kernel, dilation);
        if (outputPadding == null) {
            return switch (padding) {
                case "valid" -> clamp((long) in * stride + Math.max(k - stride, 0));
                case "same" -> clamp((long) in * stride);
                case "full" -> clamp((long) in * stride - (stride + k - 2));
                default -> null;
            };
        }
        long pad = switch (padding) {
            case "same" -> k / 2;
            case "valid" -> 0;
            case "full" -> k - 1;
            default -> Long.MIN_VALUE;
        };
        return pad == Long.MIN_VALUE ? null : clamp((long) (in - 1) * stride + k - 2 * pad + outputPadding);
    }

    /** Output length of pooling (valid or same). */
    static Integer pool(Integer in, int pool, int stride, String padding) {
        if (in == null || stride < 1 || padding == null) {
            return null;
        }
        return switch (padding) {
            case "valid" -> in < pool ? Integer.valueOf(0) : clamp(Math.floorDiv((long) in - pool, stride) + 1);
            case "same" -> clamp(Math.floorDiv((long) in + stride - 1, stride));
            default -> null;
        };
    }

    /** Output length of a PyTorch convolution with explicit padding on both sides. */
    static Integer torchConv(Integer in, int kernel, int stride, int dilation, int padBegin, int padEnd) {
        if (in == null || stride < 1) {
            return null;
        }
        return clamp(Math.floorDiv((long) in + padBegin + padEnd - span(kernel, dilation), stride) + 1);
    }

    private static Integer clamp(long v) {
        return v < 0 ? Integer.valueOf(0) : v > Integer.MAX_VALUE ? null : Integer.valueOf((int) v);
    }
}
