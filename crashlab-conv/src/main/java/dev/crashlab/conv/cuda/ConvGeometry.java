package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvProblem;
import java.util.List;

/**
 * Describes the direct convolution a kernel runs, in the 3-D general form the kernels take ({@code ConvGeom}
 * in {@code src/main/cuda/conv_common.cuh}): rank 1 and 2 problems gain leading spatial dimensions of size 1,
 * and a transposed layer becomes the direct convolution it transposes (its output is that convolution's input).
 *
 * <p>NOTE: for a transposed layer {@code c} is the layer's output channels and {@code k} its input channels,
 * so the layer's filter (C, K/groups, kernel...) is this convolution's (k, c/groups, kernel...) unchanged.
 *
 * @param n batch
 * @param c input channels of the direct convolution
 * @param k output channels of the direct convolution
 * @param groups groups
 * @param in input spatial sizes (d, h, w)
 * @param out output spatial sizes (d, h, w)
 * @param kernel kernel sizes (d, h, w)
 * @param stride strides (d, h, w)
 * @param pad zero padding before each dimension (d, h, w); the padding after only shapes {@code out}
 * @param dilation dilations (d, h, w)
 */
public record ConvGeometry(int n, int c, int k, int groups, Dims in, Dims out, Dims kernel, Dims stride, Dims pad,
        Dims dilation) {

    /** Three sizes, depth, height and width. */
    public record Dims(int d, int h, int w) {
        /** The product, as a long (a plane of a tensor). */
        public long volume() {
            return (long) d * h * w;
        }

        static Dims of(int[] v, int fill) {
            int[] p = new int[3];
            java.util.Arrays.fill(p, fill);
            System.arraycopy(v, 0, p, 3 - v.length, v.length);
            return new Dims(p[0], p[1], p[2]);
        }
    }

    /** The fields of {@code ConvGeom} in the order the kernels read them, each a 32-bit int. */
    public static final List<String> KERNEL_FIELDS = List.of("n", "c", "k", "groups", "id", "ih", "iw", "od", "oh",
            "ow", "kd", "kh", "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw", "groupBase", "splitK");

    /** Returns the direct convolution a layer's passes run on. */
    public static ConvGeometry of(ConvProblem p) {
        Dims layerIn = Dims.of(p.inDims(), 1);
        Dims layerOut = Dims.of(p.outDims(), 1);
        Dims kernel = Dims.of(p.kernel(), 1);
        Dims stride = Dims.of(p.stride(), 1);
        Dims pad = Dims.of(p.padBegin(), 0);
        Dims dilation = Dims.of(p.dilation(), 1);
        return p.transposed()
                ? new ConvGeometry(p.batch(), p.outChannels(), p.inChannels(), p.groups(), layerOut, layerIn, kernel,
                        stride, pad, dilation)
                : new ConvGeometry(p.batch(), p.inChannels(), p.outChannels(), p.groups(), layerIn, layerOut, kernel,
                        stride, pad, dilation);
    }

    /** Input channels per group. */
    public int cPerGroup() {
        return c / groups;
    }

    /** Output channels per group. */
    public int kPerGroup() {
        return k / groups;
    }

    /** Kernel taps (kd * kh * kw). */
    public long taps() {
        return kernel.volume();
    }

    /** Elements of the direct convolution's input (n, c, in). */
    public long inputElements() {
        return (long) n * c * in.volume();
    }

    /** Elements of its output (n, k, out). */
    public long outputElements() {
        return (long) n * k * out.volume();
    }

    /** Elements of its filter (k, c / groups, kernel). */
    public long filterElements() {
        return (long) k * cPerGroup() * taps();
    }

    /** Packs the kernel argument {@code ConvGeom} for one launch, in {@link #KERNEL_FIELDS} order. */
    public int[] kernelArgument(int groupBase, int splitK) {
        return new int[] {n, c, k, groups, in.d, in.h, in.w, out.d, out.h, out.w, kernel.d, kernel.h, kernel.w,
            stride.d, stride.h, stride.w, pad.d, pad.h, pad.w, dilation.d, dilation.h, dilation.w, groupBase, splitK};
    }
}
