package dev.crashlab.conv;

/**
 * Resolves a framework's padding mode ({@code valid}, {@code same}, {@code causal}, {@code full}) into the
 * explicit zero padding before and after each spatial dimension that a {@link ConvProblem} carries.
 *
 * <p>NOTE: {@code same} follows TensorFlow: the total padding is split with the odd element at the end. For a
 * transposed layer, {@code same} pads so the output is {@code input * stride} where the kernel span allows it
 * (the padding of the convolution it transposes); {@code valid} pads nothing.
 */
public final class Padding {

    private Padding() {}

    /** Begin and end padding of every spatial dimension. */
    public record Resolved(int[] begin, int[] end) {}

    /** Returns the padding for {@code mode}, or null for a mode this class does not know. */
    public static Resolved resolve(String mode, int[] input, int[] kernel, int[] stride, int[] dilation,
            boolean transposed) {
        int rank = input.length;
        int[] begin = new int[rank];
        int[] end = new int[rank];
        for (int d = 0; d < rank; d++) {
            int span = dilation[d] * (kernel[d] - 1) + 1;
            int total;
            switch (mode) {
                case "valid" -> total = 0;
                case "same" -> {
                    if (transposed) {
                        total = Math.max(span - stride[d], 0);
                    } else {
                        int out = Math.ceilDiv(input[d], stride[d]);
                        total = Math.max((out - 1) * stride[d] + span - input[d], 0);
                    }
                }
                case "causal" -> {
                    begin[d] = span - 1;
                    continue;
                }
                case "full" -> {
                    begin[d] = span - 1;
                    end[d] = span - 1;
                    continue;
                }
                default -> {
                    return null;
                }
            }
            begin[d] = total / 2;
            end[d] = total - total / 2;
        }
        return new Resolved(begin, end);
    }
}
