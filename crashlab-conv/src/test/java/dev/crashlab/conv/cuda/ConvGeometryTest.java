package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import dev.crashlab.conv.ConvProblem.Layout;
import dev.crashlab.conv.cuda.ConvGeometry.Dims;
import org.junit.jupiter.api.Test;

class ConvGeometryTest {

    static ConvProblem conv(int rank, int n, int c, int[] in, int k, int[] kernel, int[] stride, int[] padBegin,
            int[] padEnd, int[] dilation, int groups, boolean transposed) {
        return new ConvProblem("t", rank, n, c, in, k, kernel, stride, padBegin, padEnd, dilation, groups, DType.FLOAT32,
                Layout.NCHW, transposed);
    }

    @Test
    void aRankOneProblemGainsUnitDepthAndHeight() {
        // 1-D: width 100, kernel 5, stride 2, padding 2/1, dilation 3 -> (100 + 3 - 13) / 2 + 1 = 46
        ConvGeometry g = ConvGeometry.of(conv(1, 4, 6, new int[] {100}, 8, new int[] {5}, new int[] {2},
                new int[] {2}, new int[] {1}, new int[] {3}, 2, false));
        assertThat(g.in()).isEqualTo(new Dims(1, 1, 100));
        assertThat(g.out()).isEqualTo(new Dims(1, 1, 46));
        assertThat(g.kernel()).isEqualTo(new Dims(1, 1, 5));
        assertThat(g.stride()).isEqualTo(new Dims(1, 1, 2));
        assertThat(g.pad()).isEqualTo(new Dims(0, 0, 2));
        assertThat(g.dilation()).isEqualTo(new Dims(1, 1, 3));
        assertThat(g.cPerGroup()).isEqualTo(3);
        assertThat(g.kPerGroup()).isEqualTo(4);
        assertThat(g.inputElements()).isEqualTo(4 * 6 * 100);
        assertThat(g.outputElements()).isEqualTo(4 * 8 * 46);
        assertThat(g.filterElements()).isEqualTo(8 * 3 * 5);
    }

    @Test
    void aRankTwoProblemKeepsHeightAndWidthLast() {
        ConvGeometry g = ConvGeometry.of(conv(2, 1, 3, new int[] {224, 200}, 64, new int[] {7, 7}, new int[] {2, 2},
                new int[] {3, 3}, new int[] {3, 3}, new int[] {1, 1}, 1, false));
        assertThat(g.in()).isEqualTo(new Dims(1, 224, 200));
        assertThat(g.out()).isEqualTo(new Dims(1, 112, 100));
        assertThat(g.pad()).isEqualTo(new Dims(0, 3, 3));
    }

    @Test
    void aTransposedLayerBecomesTheConvolutionItTransposes() {
        // ConvTranspose2d(16 -> 8, kernel 4, stride 2, padding 1): 10x12 -> 20x24
        ConvProblem p = conv(2, 2, 16, new int[] {10, 12}, 8, new int[] {4, 4}, new int[] {2, 2}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, 1, true);
        ConvGeometry g = ConvGeometry.of(p);
        assertThat(g.c()).as("direct input channels = the layer's outputs").isEqualTo(8);
        assertThat(g.k()).as("direct output channels = the layer's inputs").isEqualTo(16);
        assertThat(g.in()).isEqualTo(new Dims(1, 20, 24));
        assertThat(g.out()).isEqualTo(new Dims(1, 10, 12));
        assertThat(g.inputElements()).isEqualTo(p.outputElements());
        assertThat(g.outputElements()).isEqualTo(p.inputElements());
        assertThat(g.filterElements()).isEqualTo(p.filterElements());
    }

    @Test
    void theKernelArgumentFollowsTheFieldOrder() {
        ConvGeometry g = ConvGeometry.of(conv(3, 2, 4, new int[] {5, 6, 7}, 6, new int[] {1, 2, 3}, new int[] {1, 2, 1},
                new int[] {0, 1, 2}, new int[] {0, 0, 0}, new int[] {1, 1, 2}, 2, false));
        int[] arg = g.kernelArgument(3, 5);
        assertThat(arg).hasSize(ConvGeometry.KERNEL_FIELDS.size());
        int f = ConvGeometry.KERNEL_FIELDS.indexOf("kh");
        assertThat(arg[f]).isEqualTo(2);
        assertThat(arg[ConvGeometry.KERNEL_FIELDS.indexOf("pw")]).isEqualTo(2);
        assertThat(arg[ConvGeometry.KERNEL_FIELDS.indexOf("dw")]).isEqualTo(2);
        assertThat(arg[ConvGeometry.KERNEL_FIELDS.indexOf("ow")]).isEqualTo(5); // (7 + 2 - 5) / 1 + 1
        assertThat(arg[ConvGeometry.KERNEL_FIELDS.indexOf("groupBase")]).isEqualTo(3);
        assertThat(arg[ConvGeometry.KERNEL_FIELDS.indexOf("splitK")]).isEqualTo(5);
        assertThat(arg).startsWith(2, 4, 6, 2, 5, 6, 7);
    }
}
