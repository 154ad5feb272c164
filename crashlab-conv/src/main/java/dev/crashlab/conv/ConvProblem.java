package dev.crashlab.conv;

import java.util.Arrays;

/**
 * One convolution with every size resolved: the unit a reproduction backend runs (forward,
 * backward-data, backward-filter) and the memory estimator sizes.
 *
 * <p>NOTE: backends compute in the channels-first order (N, C, D, H, W), with rank 1 and 2 problems as
 * the trailing one or two spatial dimensions; {@code layout} records what the reporter's framework used
 * (cuDNN picks different algorithms per layout; a backend may honour it or report that it did not).
 * A transposed convolution's forward pass is the backward-data pass of the convolution it transposes;
 * {@code inDims} are always this layer's input and {@link #outDims()} its output.
 * Arrays are copied in and out; the record is immutable.
 *
 * @param name the layer's name, for reports
 * @param rank spatial dimensions: 1, 2 or 3
 * @param batch N
 * @param inChannels C
 * @param inDims input spatial sizes, {@code rank} entries
 * @param outChannels K (filters)
 * @param kernel kernel sizes, {@code rank} entries
 * @param stride strides, {@code rank} entries, each >= 1
 * @param padBegin zero padding before each spatial dimension
 * @param padEnd zero padding after each spatial dimension
 * @param dilation dilations, each >= 1
 * @param groups groups; C and K are multiples of it
 * @param dtype the storage type of tensors (accumulation is float32 for the half types)
 * @param layout the reporter's memory layout
 * @param transposed whether this is a transposed ("deconvolution") layer
 */
public record ConvProblem(String name, int rank, int batch, int inChannels, int[] inDims, int outChannels,
        int[] kernel, int[] stride, int[] padBegin, int[] padEnd, int[] dilation, int groups, DType dtype,
        Layout layout, boolean transposed) {

    /** Tensor element types a replay can use. */
    public enum DType {
        FLOAT32(4), FLOAT16(2), BFLOAT16(2);

        /** Bytes per element. */
        public final int bytes;

        DType(int bytes) {
            this.bytes = bytes;
        }
    }

    /** Memory layouts. */
    public enum Layout { NCHW, NHWC }

    public ConvProblem {
        if (rank < 1 || rank > 3) {
            throw new IllegalArgumentException(name + ": rank must be 1, 2 or 3, not " + rank);
        }
        inDims = checked(name, "inDims", inDims, rank, 1);
        kernel = checked(name, "kernel", kernel, rank, 1);
        stride = checked(name, "stride", stride, rank, 1);
        padBegin = checked(name, "padBegin", padBegin, rank, 0);
        padEnd = checked(name, "padEnd", padEnd, rank, 0);
        dilation = checked(name, "dilation", dilation, rank, 1);
        if (batch < 1 || inChannels < 1 || outChannels < 1 || groups < 1) {
            throw new IllegalArgumentException(name + ": batch, channels and groups must be >= 1");
        }
        if (inChannels % groups != 0 || outChannels % groups != 0) {
            throw new IllegalArgumentException(name + ": " + groups + " groups do not divide " + inChannels
                    + " input and " + outChannels + " output channels");
        }
        if (dtype == null || layout == null) {
            throw new IllegalArgumentException(name + ": dtype and layout are required");
        }
        for (int d = 0; d < rank; d++) {
            if (outDim(d, inDims, kernel, stride, padBegin, padEnd, dilation, transposed) < 1) {
                throw new IllegalArgumentException(name + ": the kernel does not fit the padded input in dimension "
                        + d + " (" + Arrays.toString(inDims) + ", kernel " + Arrays.toString(kernel) + ")");
            }
        }
    }

    private static int[] checked(String name, String what, int[] v, int rank, int min) {
        if (v == null || v.length != rank) {
            throw new IllegalArgumentException(name + ": " + what + " needs " + rank + " entries, got "
                    + (v == null ? "none" : Arrays.toString(v)));
        }
        for (int x : v) {
            if (x < min) {
                throw new IllegalArgumentException(name + ": " + what + " entries must be >= " + min + ": "
                        + Arrays.toString(v));
            }
        }
        return v.clone();
    }

    private static int outDim(int d, int[] in, int[] k, int[] s, int[] pb, int[] pe, int[] dil, boolean transposed) {
        long span = (long) dil[d] * (k[d] - 1) + 1;
        long out = transposed
                ? (long) (in[d] - 1) * s[d] - pb[d] - pe[d] + span
                : Math.floorDiv((long) in[d] + pb[d] + pe[d] - span, s[d]) + 1;
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, out));
    }

    /** Returns the output spatial sizes. */
    public int[] outDims() {
        int[] out = new int[rank];
        for (int d = 0; d < rank; d++) {
            out[d] = outDim(d, inDims, kernel, stride, padBegin, padEnd, dilation, transposed);
        }
        return out;
    }

    /** Elements of the input tensor (N * C * prod(inDims)). */
    public long inputElements() {
        return (long) batch * inChannels * product(inDims);
    }

    /** Elements of the output tensor (N * K * prod(outDims)). */
    public long outputElements() {
        return (long) batch * outChannels * product(outDims());
    }

    /** Elements of the filter tensor (K * C/groups * prod(kernel)), for a transposed layer (C * K/groups * ...). */
    public long filterElements() {
        return transposed
                ? (long) inChannels * (outChannels / groups) * product(kernel)
                : (long) outChannels * (inChannels / groups) * product(kernel);
    }

    /** Multiply-adds of one forward pass (the same count for backward-data and backward-filter). */
    public long macs() {
        long perOut = (long) (inChannels / groups) * product(kernel);
        return transposed
                ? (long) batch * inChannels * product(inDims) * (outChannels / groups) * product(kernel)
                : outputElements() * perOut;
    }

    private static long product(int[] v) {
        long p = 1;
        for (int x : v) {
            p *= x;
        }
        return p;
    }

    @Override public int[] inDims() { return inDims.clone(); }
    @Override public int[] kernel() { return kernel.clone(); }
    @Override public int[] stride() { return stride.clone(); }
    @Override public int[] padBegin() { return padBegin.clone(); }
    @Override public int[] padEnd() { return padEnd.clone(); }
    @Override public int[] dilation() { return dilation.clone(); }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConvProblem p && rank == p.rank && batch == p.batch && inChannels == p.inChannels
                && outChannels == p.outChannels && groups == p.groups && transposed == p.transposed
                && dtype == p.dtype && layout == p.layout && java.util.Objects.equals(name, p.name)
                && Arrays.equals(inDims, p.inDims) && Arrays.equals(kernel, p.kernel) && Arrays.equals(stride, p.stride)
                && Arrays.equals(padBegin, p.padBegin) && Arrays.equals(padEnd, p.padEnd)
                && Arrays.equals(dilation, p.dilation);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(name, rank, batch, inChannels, outChannels, groups, transposed, dtype, layout,
                Arrays.hashCode(inDims), Arrays.hashCode(kernel), Arrays.hashCode(stride), Arrays.hashCode(padBegin),
                Arrays.hashCode(padEnd), Arrays.hashCode(dilation));
    }

    @Override
    public String toString() {
        return name + "[" + (transposed ? "convT" : "conv") + rank + "d N=" + batch + " C=" + inChannels + " in="
                + Arrays.toString(inDims) + " K=" + outChannels + " k=" + Arrays.toString(kernel) + " s="
                + Arrays.toString(stride) + " p=" + Arrays.toString(padBegin) + "/" + Arrays.toString(padEnd) + " d="
                + Arrays.toString(dilation) + " g=" + groups + " " + dtype + " " + layout + "]";
    }
}
