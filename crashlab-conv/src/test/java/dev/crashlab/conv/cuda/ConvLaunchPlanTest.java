package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import dev.crashlab.conv.cuda.ConvLaunchPlan.GroupRun;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ConvLaunchPlanTest {

    /** ResNet-50 conv2_x 3x3: N=32, 64 -> 64 channels, 56x56, padding 1. */
    static ConvGeometry resnet3x3() {
        return ConvGeometry.of(ConvGeometryTest.conv(2, 32, 64, new int[] {56, 56}, 64, new int[] {3, 3},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false));
    }

    @Test
    void forwardTilesOutputPixelsByOutputChannels() {
        ConvLaunchPlan plan = ConvLaunchPlan.plan(resnet3x3(), KernelPass.FORWARD, DType.FLOAT32, 132);
        // rows 32 * 56 * 56 = 100352 = 1568 tiles of 64; columns 64 = 1 tile
        assertThat(plan.kernel()).isEqualTo("conv_fwd_f32");
        assertThat(plan.gridX()).isEqualTo(1568);
        assertThat(plan.gridY()).isEqualTo(1);
        assertThat(plan.splitK()).isEqualTo(1);
        assertThat(plan.launches()).containsExactly(new GroupRun(0, 1));
    }

    @Test
    void backwardDataTilesInputPixelsByInputChannels() {
        ConvGeometry g = ConvGeometry.of(ConvGeometryTest.conv(2, 2, 96, new int[] {15, 15}, 10, new int[] {3, 3},
                new int[] {2, 2}, new int[] {0, 0}, new int[] {0, 0}, new int[] {1, 1}, 2, false));
        ConvLaunchPlan plan = ConvLaunchPlan.plan(g, KernelPass.BACKWARD_DATA, DType.FLOAT16, 80);
        // rows 2 * 15 * 15 = 450 -> 8 tiles; columns 96 / 2 = 48 -> 1 tile; 2 groups in one launch
        assertThat(plan.kernel()).isEqualTo("conv_bwd_data_f16");
        assertThat(plan.gridX()).isEqualTo(8);
        assertThat(plan.gridY()).isEqualTo(1);
        assertThat(plan.launches()).containsExactly(new GroupRun(0, 2));
        assertThat(KernelPass.BACKWARD_DATA.reduction(g)).isEqualTo(5 * 9);
    }

    @Test
    void backwardFilterSplitsItsLongReductionToFillTheDevice() {
        ConvLaunchPlan plan = ConvLaunchPlan.plan(resnet3x3(), KernelPass.BACKWARD_FILTER, DType.BFLOAT16, 132);
        // rows 64 -> 1 tile; columns 64 * 9 = 576 -> 9 tiles: 9 blocks for 4 * 132 = 528 wanted -> 59 slices
        // of ceil(6272 / 59) = 107 steps -> ceil(6272 / 107) = 59 slices
        assertThat(plan.kernel()).isEqualTo("conv_bwd_filter_bf16");
        assertThat(plan.gridX()).isEqualTo(1);
        assertThat(plan.gridY()).isEqualTo(9);
        assertThat(plan.splitK()).isEqualTo(59);
        assertThat(plan.launches()).containsExactly(new GroupRun(0, 1));
    }

    @Test
    void aShortReductionOrABusyGridIsNotSplit() {
        assertThat(ConvLaunchPlan.splitK(10, 16 * 16, 100)).as("16 steps: too short").isEqualTo(1);
        assertThat(ConvLaunchPlan.splitK(400, 1_000_000, 100)).as("400 blocks fill 100 SMs").isEqualTo(1);
        assertThat(ConvLaunchPlan.splitK(1, 16 * 64, 100)).as("64 steps allow 4 slices of 16").isEqualTo(4);
    }

    @Test
    void slicesCoverTheReductionExactlyOnceAndNoneIsEmpty() {
        Random random = new Random(6);
        for (int i = 0; i < 2000; i++) {
            long reduction = 1 + random.nextInt(random.nextBoolean() ? 5000 : 5_000_000);
            int splitK = ConvLaunchPlan.splitK(1 + random.nextInt(50), reduction, 1 + random.nextInt(200));
            long next = 0;
            for (int s = 0; s < splitK; s++) {
                long[] r = ConvLaunchPlan.sliceRange(s, splitK, reduction);
                assertThat(r[0]).as("reduction %d, %d slices: slice %d", reduction, splitK, s).isEqualTo(next);
                assertThat(r[1]).as("reduction %d, %d slices: slice %d is empty", reduction, splitK, s).isGreaterThan(r[0]);
                assertThat(r[0] % ConvLaunchPlan.TILE_K).isZero();
                next = r[1];
            }
            assertThat(next).isEqualTo(reduction);
        }
    }

    @Test
    void groupsBeyondTheGridLimitGoIntoSeveralLaunches() {
        // a depthwise 1-D layer with 150000 groups: at most 65535 groups per launch
        ConvGeometry g = ConvGeometry.of(ConvGeometryTest.conv(1, 1, 150_000, new int[] {8}, 150_000, new int[] {3},
                new int[] {1}, new int[] {1}, new int[] {1}, new int[] {1}, 150_000, false));
        ConvLaunchPlan plan = ConvLaunchPlan.plan(g, KernelPass.FORWARD, DType.FLOAT32, 80);
        assertThat(plan.launches()).containsExactly(new GroupRun(0, 65535), new GroupRun(65535, 65535),
                new GroupRun(131070, 18930));
    }

    @Test
    void splitLaunchesKeepGroupsTimesSlicesUnderTheGridLimit() {
        ConvGeometry g = ConvGeometry.of(ConvGeometryTest.conv(2, 64, 512, new int[] {64, 64}, 512, new int[] {3, 3},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 512, false));
        ConvLaunchPlan plan = ConvLaunchPlan.plan(g, KernelPass.BACKWARD_FILTER, DType.FLOAT32, 10_000);
        assertThat(plan.splitK()).isGreaterThan(1);
        int groups = 0;
        for (GroupRun run : plan.launches()) {
            assertThat((long) run.groups() * plan.splitK()).isLessThanOrEqualTo(ConvLaunchPlan.MAX_GRID_YZ);
            assertThat(run.groupBase()).isEqualTo(groups);
            groups += run.groups();
        }
        assertThat(groups).isEqualTo(512);
    }

    @Test
    void aProblemNoGridCanIndexIsRefused() {
        // backward-filter columns = C/groups * taps = 70000 * 27 * 27 * 27: over 65535 tiles of 64
        ConvProblem p = ConvGeometryTest.conv(3, 1, 70_000, new int[] {27, 27, 27}, 1, new int[] {27, 27, 27},
                new int[] {1, 1, 1}, new int[] {0, 0, 0}, new int[] {0, 0, 0}, new int[] {1, 1, 1}, 1, false);
        assertThatThrownBy(() -> ConvLaunchPlan.plan(ConvGeometry.of(p), KernelPass.BACKWARD_FILTER, DType.FLOAT32, 80))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit one grid");
    }

    @Test
    void theRoundingKernelUsesAGridStrideLoopUnderTheLimit() {
        assertThat(ConvLaunchPlan.roundingBlocks(1)).isEqualTo(1);
        assertThat(ConvLaunchPlan.roundingBlocks(257)).isEqualTo(2);
        assertThat(ConvLaunchPlan.roundingBlocks(1L << 40)).isEqualTo(ConvLaunchPlan.MAX_GRID_YZ);
        assertThat(List.of(ConvLaunchPlan.typeSuffix(DType.FLOAT32), ConvLaunchPlan.typeSuffix(DType.FLOAT16),
                ConvLaunchPlan.typeSuffix(DType.BFLOAT16))).containsExactly("f32", "f16", "bf16");
    }
}
