package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The GPU tests' reference must itself be right: hand-computed cases, and each backward pass the adjoint of forward. */
class NaiveConvolutionTest {

    @Test
    void aStridedDilatedPaddedOneDimensionalCase() {
        // x = 1..6, kernel (1, 10) dilation 2, stride 2, padding 1/0: taps at o*2 - 1 and o*2 + 1
        ConvProblem p = ConvGeometryTest.conv(1, 1, 1, new int[] {6}, 1, new int[] {2}, new int[] {2}, new int[] {1},
                new int[] {0}, new int[] {2}, 1, false);
        var y = NaiveConvolution.forward(p, new float[] {1, 2, 3, 4, 5, 6}, new float[] {1, 10});
        // o=0: x[-1]*1 + x[1]*10 = 20; o=1: x[1] + 10 x[3] = 2 + 40; o=2: x[3] + 10 x[5] = 4 + 60
        assertThat(y.values()).containsExactly(20, 42, 64);
        assertThat(y.magnitudes()).containsExactly(20, 42, 64);
    }

    @Test
    void groupsOnlyMixChannelsWithinAGroup() {
        // 2 groups, 1x1 kernel: y0 = x0 * 2, y1 = x1 * 3 (no cross terms)
        ConvProblem p = ConvGeometryTest.conv(2, 1, 2, new int[] {1, 2}, 2, new int[] {1, 1}, new int[] {1, 1},
                new int[] {0, 0}, new int[] {0, 0}, new int[] {1, 1}, 2, false);
        var y = NaiveConvolution.forward(p, new float[] {1, 2, 5, 7}, new float[] {2, 3});
        assertThat(y.values()).containsExactly(2, 4, 15, 21);
    }

    @Test
    void aTransposedLayerSpreadsEachInputOverItsWindow() {
        // ConvTranspose1d stride 2 kernel 3 no padding: in 2 -> out (2-1)*2 + 3 = 5
        ConvProblem p = ConvGeometryTest.conv(1, 1, 1, new int[] {2}, 1, new int[] {3}, new int[] {2}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, true);
        assertThat(p.outDims()).containsExactly(5);
        var y = NaiveConvolution.forward(p, new float[] {1, 10}, new float[] {1, 2, 3});
        assertThat(y.values()).containsExactly(1, 2, 3 + 10, 20, 30);
    }

    @Test
    void backwardPassesAreTheAdjointsOfForward() {
        long seed = new Random().nextLong();
        System.out.println("NaiveConvolutionTest seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 150; i++) {
            ConvProblem p = RandomConvProblems.next(random, i, DType.FLOAT32, 3, 7);
            float[] x = RandomConvProblems.tensor(random, p.inputElements());
            float[] w = RandomConvProblems.tensor(random, p.filterElements());
            float[] dy = RandomConvProblems.tensor(random, p.outputElements());
            double[] y = NaiveConvolution.forward(p, x, w).values();
            double[] dx = NaiveConvolution.backwardData(p, dy, w).values();
            double[] dw = NaiveConvolution.backwardFilter(p, x, dy).values();
            // <dy, conv(x, w)> = <dx, x> = <dw, w>
            double a = dot(dy, y);
            assertThat(dot(x, dx)).as("seed %d, %s", seed, p).isCloseTo(a, org.assertj.core.data.Offset.offset(1e-9 * (1 + Math.abs(a))));
            assertThat(dot(w, dw)).as("seed %d, %s", seed, p).isCloseTo(a, org.assertj.core.data.Offset.offset(1e-9 * (1 + Math.abs(a))));
        }
    }

    private static double dot(float[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
