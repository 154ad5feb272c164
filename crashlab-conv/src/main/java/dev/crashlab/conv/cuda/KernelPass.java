package dev.crashlab.conv.cuda;

/**
 * Names the three kernels of a direct convolution, the PTX module each lives in, and the GEMM each runs
 * (rows x columns over a reduction), as {@code src/main/cuda/conv_*.cu} define them.
 */
public enum KernelPass {
    /** y = conv(x, w): rows are output pixels, columns output channels, the reduction input channels x taps. */
    FORWARD("conv_forward", "conv_fwd"),
    /** dx from dy and w: rows are input pixels, columns input channels, the reduction output channels x taps. */
    BACKWARD_DATA("conv_backward_data", "conv_bwd_data"),
    /** dw from x and dy: rows are output channels, columns input channels x taps, the reduction every output pixel. */
    BACKWARD_FILTER("conv_backward_filter", "conv_bwd_filter");

    /** The PTX module (resource {@code cuda/<module>.ptx}). */
    public final String module;
    private final String kernelPrefix;

    KernelPass(String module, String kernelPrefix) {
        this.module = module;
        this.kernelPrefix = kernelPrefix;
    }

    /** The kernel's name for a storage type suffix ({@code f32}, {@code f16}, {@code bf16}). */
    public String kernel(String typeSuffix) {
        return kernelPrefix + "_" + typeSuffix;
    }

    /** GEMM rows, per group. */
    public long rows(ConvGeometry g) {
        return switch (this) {
            case FORWARD -> g.n() * g.out().volume();
            case BACKWARD_DATA -> g.n() * g.in().volume();
            case BACKWARD_FILTER -> g.kPerGroup();
        };
    }

    /** GEMM columns, per group. */
    public long columns(ConvGeometry g) {
        return switch (this) {
            case FORWARD -> g.kPerGroup();
            case BACKWARD_DATA -> g.cPerGroup();
            case BACKWARD_FILTER -> g.cPerGroup() * g.taps();
        };
    }

    /** The GEMM's reduction length. */
    public long reduction(ConvGeometry g) {
        return switch (this) {
            case FORWARD -> g.cPerGroup() * g.taps();
            case BACKWARD_DATA -> g.kPerGroup() * g.taps();
            case BACKWARD_FILTER -> g.n() * g.out().volume();
        };
    }
}
