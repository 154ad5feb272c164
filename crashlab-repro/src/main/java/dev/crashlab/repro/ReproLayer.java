package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;

import java.util.Arrays;

/**
 * Describes one convolution layer of a {@link ReproSpec}: its channels, spatial input size and geometry,
 * with padding already resolved to explicit begin/end amounts.
 *
 * <p>NOTE: the batch, dtype and layout come from the spec, so one layer list can be replayed at another
 * batch size. The rank is the length of {@code input}; every other spatial array has that length.
 * For a transposed layer the filter is (in, out/groups, kernel...) and the output grows with the stride.
 *
 * @param name the layer's name, for reports
 * @param inChannels input channels C
 * @param outChannels output channels K (filters)
 * @param input spatial input sizes (D, H, W order, as many as the rank)
 * @param kernel kernel sizes
 * @param stride strides
 * @param padBegin zero padding before each spatial dimension
 * @param padEnd zero padding after each spatial dimension
 * @param dilation dilations
 * @param groups convolution groups (depthwise: groups = inChannels)
 * @param transposed whether this is a transposed ("deconvolution") layer
 */
public record ReproLayer(String name, int inChannels, int outChannels, int[] input, int[] kernel, int[] stride,
        int[] padBegin, int[] padEnd, int[] dilation, int groups, boolean transposed) {

    public ReproLayer {
        input = input.clone();
        kernel = kernel.clone();
        stride = stride.clone();
        padBegin = padBegin.clone();
        padEnd = padEnd.clone();
        dilation = dilation.clone();
    }

    /** Spatial dimensions: 1, 2 or 3. */
    public int rank() {
        return input.length;
    }

    /** Resolves this layer into the problem a backend runs. */
    public ConvProblem problem(int batch, ConvProblem.DType dtype, ConvProblem.Layout layout) {
        return new ConvProblem(name, input.length, batch, inChannels, input, outChannels, kernel, stride, padBegin,
                padEnd, dilation, groups, dtype, layout, transposed);
    }

    @Override public int[] input() { return input.clone(); }
    @Override public int[] kernel() { return kernel.clone(); }
    @Override public int[] stride() { return stride.clone(); }
    @Override public int[] padBegin() { return padBegin.clone(); }
    @Override public int[] padEnd() { return padEnd.clone(); }
    @Override public int[] dilation() { return dilation.clone(); }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReproLayer l && java.util.Objects.equals(name, l.name) && inChannels == l.inChannels
                && outChannels == l.outChannels && groups == l.groups && transposed == l.transposed
                && Arrays.equals(input, l.input) && Arrays.equals(kernel, l.kernel) && Arrays.equals(stride, l.stride)
                && Arrays.equals(padBegin, l.padBegin) && Arrays.equals(padEnd, l.padEnd)
                && Arrays.equals(dilation, l.dilation);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(name, inChannels, outChannels, groups, transposed, Arrays.hashCode(input),
                Arrays.hashCode(kernel), Arrays.hashCode(stride), Arrays.hashCode(padBegin), Arrays.hashCode(padEnd),
                Arrays.hashCode(dilation));
    }

    @Override
    public String toString() {
        return name + "[" + (transposed ? "convT " : "conv ") + inChannels + "->" + outChannels + " in="
                + Arrays.toString(input) + " k=" + Arrays.toString(kernel) + " s=" + Arrays.toString(stride) + " p="
                + Arrays.toString(padBegin) + "/" + Arrays.toString(padEnd) + " d=" + Arrays.toString(dilation)
                + " g=" + groups + "]";
    }
}
