package dev.crashlab.parse.model;

import java.util.Collections;
import java.util.List;

/**
 * Works out what a {@code model.summary()} row leaves unsaid about a convolution from the numbers it does
 * give: the kernel from {@code Param # = (prod(kernel) * in/groups + bias) * filters}, the data format from
 * where the channel count moves, the strides and padding from the input and output sizes.
 *
 * <p>NOTE: it assumes square (cubic) kernels, one group and dilation 1, and tries the table's format so far
 * (else channels-last) before the other, bias before no bias, {@code same} before {@code valid}, smaller strides first; every field
 * it derives is named in the draft's {@code inferred}. Where no reading fits, the fields stay null.
 */
final class SummaryConvDerivation {

    /** The largest stride tried. */
    private static final int MAX_STRIDE = 8;

    private SummaryConvDerivation() {}

    /**
     * Fills {@code d} (kind, rank, name and output shape set) from its {@code params} and the {@code input}
     * shape (the previous row's output; null for a first row without an input row), trying
     * {@code preferredFormat} (the format earlier rows of the table fitted; null for none) first.
     */
    static void derive(ConvDraft d, Long params, List<Integer> input, String preferredFormat) {
        List<Integer> output = d.outputShape;
        if (output == null || output.size() != d.rank + 2) {
            return;
        }
        List<String> formats = "channels_first".equals(preferredFormat)
                ? List.of("channels_first", "channels_last") : List.of("channels_last", "channels_first");
        for (String format : formats) {
            d.dataFormat = format;
            if (input != null && input.size() == output.size() ? fitWithInput(d, params, input) : fitWithoutInput(d, params)) {
                d.inferred("dataFormat");
                return;
            }
        }
        // nothing fits: keep what the row says (filters in the table's layout so far) and derive nothing else
        d.dataFormat = formats.get(0);
        d.inferred("dataFormat");
        d.filters = d.depthwise() ? null : output.get(d.channelAxis(output));
        d.inChannels = null;
        d.kernel = null;
        d.inputShape = input != null && input.size() == output.size() ? input : null;
    }

    private static boolean fitWithInput(ConvDraft d, Long params, List<Integer> input) {
        List<Integer> output = d.outputShape;
        Integer cout = output.get(d.channelAxis(output));
        Integer cin = input.get(d.channelAxis(input));
        if (cout == null || cin == null || cout == 0 || cin == 0) {
            return false;
        }
        for (int bias = 1; bias >= 0; bias--) {
            Integer kernelProduct = kernelProduct(d, params, cin, cout, bias);
            Integer k = kernelProduct == null ? null : root(kernelProduct, d.rank);
            if (k == null) {
                continue;
            }
            List<Integer> in = d.spatial(input);
            List<Integer> out = d.spatial(output);
            for (String padding : List.of("same", "valid")) {
                for (int s = 1; s <= MAX_STRIDE; s++) {
                    if (fits(d, in, out, k, s, padding)) {
                        set(d, cin, cout, Collections.nCopies(d.rank, k), s, padding);
                        d.inputShape = input;
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** A first row with nothing before it: assume {@code same} padding and stride 1, and image-like channel counts. */
    private static boolean fitWithoutInput(ConvDraft d, Long params) {
        List<Integer> output = d.outputShape;
        Integer cout = output.get(d.channelAxis(output));
        if (cout == null || cout == 0 || params == null) {
            return false;
        }
        for (int cin : new int[] {1, 3}) {
            for (int bias = 1; bias >= 0; bias--) {
                Integer kp = kernelProduct(d, params, cin, cout, bias);
                Integer k = kp == null ? null : root(kp, d.rank);
                if (k != null) {
                    set(d, cin, cout, Collections.nCopies(d.rank, k), 1, "same");
                    List<Integer> spatial = d.spatial(output);
                    d.inputShape = d.shapeOf(output.get(0), cin, spatial);
                    d.inferred("inChannels").inferred("inputShape");
                    return true;
                }
            }
        }
        return false;
    }

    /** prod(kernel) from the parameter count with ({@code bias} 1) or without (0) a bias; null where no integer fits. */
    private static Integer kernelProduct(ConvDraft d, Long params, int cin, int cout, int bias) {
        if (params == null) {
            return null;
        }
        long p = params;
        long k;
        if (d.depthwise()) {
            // depthwise: K * cout weights (cout = cin * multiplier) + bias per output channel
            if (cout % cin != 0 || p % cout != 0) {
                return null;
            }
            k = p / cout - bias;
        } else if (d.kind.startsWith("Separable")) {
            // separable with multiplier 1: K * cin depthwise + cin * cout pointwise + bias per output channel
            long rest = p - (long) cin * cout - (long) bias * cout;
            if (rest <= 0 || rest % cin != 0) {
                return null;
            }
            k = rest / cin;
        } else {
            if (p % cout != 0) {
                return null;
            }
            long perFilter = p / cout - bias;
            if (perFilter <= 0 || perFilter % cin != 0) {
                return null;
            }
            k = perFilter / cin;
        }
        return k >= 1 && k <= Integer.MAX_VALUE ? Integer.valueOf((int) k) : null;
    }

    /** The integer r with r^rank = value, or null. */
    private static Integer root(int value, int rank) {
        int r = (int) Math.round(Math.pow(value, 1.0 / rank));
        for (int c = Math.max(1, r - 1); c <= r + 1; c++) {
            long p = 1;
            for (int i = 0; i < rank; i++) {
                p *= c;
            }
            if (p == value) {
                return c;
            }
        }
        return null;
    }

    private static boolean fits(ConvDraft d, List<Integer> in, List<Integer> out, int k, int s, String padding) {
        for (int i = 0; i < d.rank; i++) {
            Integer want = out.get(i);
            Integer got = d.transposed() ? ConvArithmetic.transposed(in.get(i), k, s, 1, padding, null)
                    : ConvArithmetic.conv(in.get(i), k, s, 1, padding);
            if (want == null || !want.equals(got)) {
                return false;
            }
        }
        return true;
    }

    private static void set(ConvDraft d, int cin, int cout, List<Integer> kernel, int stride, String padding) {
        d.inChannels = cin;
        d.filters = cout;
        d.kernel = kernel;
        d.strides = Collections.nCopies(d.rank, stride);
        d.padding = padding;
        d.dilation = Collections.nCopies(d.rank, 1);
        if (d.depthwise()) {
            d.groups = cin;
            d.depthMultiplier = cout / cin;
            d.inferred("depthMultiplier");
        } else {
            d.groups = 1;
            if (d.kind.startsWith("Separable")) {
                d.depthMultiplier = 1;
                d.inferred("depthMultiplier");
            }
        }
        d.inferred("kernel").inferred("strides").inferred("padding").inferred("dilation").inferred("groups");
    }
}
