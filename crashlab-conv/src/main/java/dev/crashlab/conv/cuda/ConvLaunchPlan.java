package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvProblem.DType;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans the launches of one kernel pass: which kernel, the grid of 64 x 64 output tiles, how the groups are
 * spread over launches (a grid holds at most 65535 in z), and for backward-filter how many slices the
 * reduction is split into.
 *
 * <p>NOTE: the tile sizes and the slice formula mirror {@code src/main/cuda/conv_common.cuh} and
 * {@code conv_backward_filter.cu}; a test reads the constants from the source.
 *
 * @param pass the kernel pass
 * @param kernel the kernel's name in the pass's module
 * @param gridX row tiles
 * @param gridY column tiles
 * @param splitK slices of the reduction per group (1 but for backward-filter)
 * @param launches the launches, each a run of groups
 */
public record ConvLaunchPlan(KernelPass pass, String kernel, int gridX, int gridY, int splitK, List<GroupRun> launches) {

    public static final int TILE_M = 64;
    public static final int TILE_N = 64;
    public static final int TILE_K = 16;
    public static final int THREADS = 256;
    /** The driver's limit on gridDim.y and gridDim.z. */
    public static final int MAX_GRID_YZ = 65535;
    /** A slice of a split reduction is at least this many TILE_K steps (fewer would cost more in atomics than it gains). */
    static final int MIN_STEPS_PER_SLICE = 16;
    /** Resident blocks per multiprocessor the split aims to fill (64 registers x 256 threads allow 4). */
    static final int BLOCKS_PER_MULTIPROCESSOR = 4;

    /** One launch: groups {@code [groupBase, groupBase + groups)}; its grid z is {@code groups * splitK}. */
    public record GroupRun(int groupBase, int groups) {}

    public ConvLaunchPlan {
        launches = List.copyOf(launches);
    }

    /** Returns the storage-type suffix of the kernel names. */
    public static String typeSuffix(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> "f32";
            case FLOAT16 -> "f16";
            case BFLOAT16 -> "bf16";
        };
    }

    /**
     * Plans a pass on a device with {@code multiprocessors} SMs.
     *
     * @throws IllegalArgumentException when the problem exceeds what one grid can index (a column count over
     *     2^31 - 1 or more than 65535 column tiles), which no real layer reaches
     */
    public static ConvLaunchPlan plan(ConvGeometry g, KernelPass pass, DType dtype, int multiprocessors) {
        long rows = pass.rows(g);
        long cols = pass.columns(g);
        long gridX = ceilDiv(rows, TILE_M);
        long gridY = ceilDiv(cols, TILE_N);
        if (cols > Integer.MAX_VALUE || gridX > Integer.MAX_VALUE || gridY > MAX_GRID_YZ) {
            throw new IllegalArgumentException(pass + " of " + rows + " x " + cols + " does not fit one grid ("
                    + gridX + " x " + gridY + " tiles; limits " + Integer.MAX_VALUE + " x " + MAX_GRID_YZ + ")");
        }
        int splitK = pass == KernelPass.BACKWARD_FILTER
                ? splitK(gridX * gridY * g.groups(), pass.reduction(g), multiprocessors)
                : 1;
        int perLaunch = MAX_GRID_YZ / splitK;
        List<GroupRun> runs = new ArrayList<>();
        for (int base = 0; base < g.groups(); base += perLaunch) {
            runs.add(new GroupRun(base, Math.min(perLaunch, g.groups() - base)));
        }
        return new ConvLaunchPlan(pass, pass.kernel(typeSuffix(dtype)), (int) gridX, (int) gridY, splitK, runs);
    }

    /**
     * Chooses how many slices a reduction of {@code reduction} elements is split into so that
     * {@code blocks} tiles fill a device of {@code multiprocessors} SMs, keeping each slice long and none empty.
     */
    static int splitK(long blocks, long reduction, int multiprocessors) {
        long target = (long) BLOCKS_PER_MULTIPROCESSOR * Math.max(1, multiprocessors);
        long steps = ceilDiv(reduction, TILE_K);
        if (blocks >= target || steps <= MIN_STEPS_PER_SLICE) {
            return 1;
        }
        long wanted = Math.min(ceilDiv(target, blocks), steps / MIN_STEPS_PER_SLICE);
        wanted = Math.max(1, Math.min(wanted, MAX_GRID_YZ));
        // as many slices as it takes at the slice length wanted implies: the last one is never empty
        long stepsPerSlice = ceilDiv(steps, wanted);
        return (int) ceilDiv(steps, stepsPerSlice);
    }

    /** The reduction range {@code [begin, end)} slice {@code slice} of {@code splitK} covers (the kernel's formula). */
    static long[] sliceRange(int slice, int splitK, long reduction) {
        long steps = ceilDiv(reduction, TILE_K);
        long perSlice = ceilDiv(steps, splitK) * TILE_K;
        long begin = slice * perSlice;
        return new long[] {Math.min(begin, reduction), Math.min(reduction, begin + perSlice)};
    }

    /** Blocks and grid for the float32 -> half rounding of {@code count} elements (a grid-stride loop). */
    static int roundingBlocks(long count) {
        return (int) Math.max(1, Math.min(ceilDiv(count, THREADS), MAX_GRID_YZ));
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
