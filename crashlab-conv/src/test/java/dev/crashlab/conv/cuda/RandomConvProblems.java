package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import dev.crashlab.conv.ConvProblem.Layout;
import java.util.Random;

/** Draws small random convolution problems (every rank, stride, dilation, groups, asymmetric padding, transposed). */
final class RandomConvProblems {

    private RandomConvProblems() {
    }

    static ConvProblem next(Random random, int index, DType dtype, int maxChannels, int maxSize) {
        while (true) {
            int rank = 1 + random.nextInt(3);
            int groups = 1 + random.nextInt(3);
            int[] in = new int[rank];
            int[] kernel = new int[rank];
            int[] stride = new int[rank];
            int[] padBegin = new int[rank];
            int[] padEnd = new int[rank];
            int[] dilation = new int[rank];
            int size = rank == 3 ? Math.max(2, maxSize / 3) : maxSize;
            for (int a = 0; a < rank; a++) {
                in[a] = 1 + random.nextInt(size);
                kernel[a] = 1 + random.nextInt(3);
                stride[a] = 1 + random.nextInt(3);
                padBegin[a] = random.nextInt(3);
                padEnd[a] = random.nextInt(3);
                dilation[a] = 1 + random.nextInt(2);
            }
            try {
                return new ConvProblem("random-" + index, rank, 1 + random.nextInt(2),
                        groups * (1 + random.nextInt(maxChannels)), in, groups * (1 + random.nextInt(maxChannels)), kernel,
                        stride, padBegin, padEnd, dilation, groups, dtype, Layout.NCHW, random.nextInt(4) == 0);
            } catch (IllegalArgumentException e) {
                // the kernel did not fit the padded input, or a transposed padding ate the output: draw again
            }
        }
    }

    static float[] tensor(Random random, long elements) {
        float[] v = new float[(int) elements];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }
}
