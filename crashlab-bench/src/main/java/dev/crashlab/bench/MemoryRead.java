package dev.crashlab.bench;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The rate at which this machine's threads read memory that no cache holds: each thread sums its share of an array
 * four times the size of the largest last-level cache we run on, in vectors with four accumulators, front to back.
 * A row of the bench that must move B bytes at this rate cannot take less CPU time than B over it, whatever its loops.
 */
final class MemoryRead {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** 128 MiB of floats. */
    static final int FLOATS = 32 << 20;

    private MemoryRead() {}

    /** The sum of a[from, to), to - from a multiple of 4 vectors. */
    static double sum(float[] a, int from, int to) {
        int l = S.length();
        FloatVector s0 = FloatVector.zero(S);
        FloatVector s1 = FloatVector.zero(S);
        FloatVector s2 = FloatVector.zero(S);
        FloatVector s3 = FloatVector.zero(S);
        for (int i = from; i + 4 * l <= to; i += 4 * l) {
            s0 = s0.add(FloatVector.fromArray(S, a, i));
            s1 = s1.add(FloatVector.fromArray(S, a, i + l));
            s2 = s2.add(FloatVector.fromArray(S, a, i + 2 * l));
            s3 = s3.add(FloatVector.fromArray(S, a, i + 3 * l));
        }
        return s0.add(s1).add(s2).add(s3).reduceLanes(VectorOperators.ADD);
    }
}
