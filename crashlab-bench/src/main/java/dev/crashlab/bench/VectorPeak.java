package dev.crashlab.bench;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The machine's FMA peak as the Vector API reaches it: twelve independent accumulators (enough to cover the FMA
 * latency on two FMA pipes) updated in registers, no memory traffic.
 */
final class VectorPeak {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** Lanes of one vector. */
    static final int LANES = S.length();
    /** Floating-point operations of one repetition of {@link #run}: 64 steps of 12 vector FMAs. */
    static final double FLOP_PER_REP = 64.0 * 12 * 2 * LANES;

    private VectorPeak() {}

    static double run(int reps) {
        FloatVector c0 = FloatVector.zero(S);
        FloatVector c1 = c0;
        FloatVector c2 = c0;
        FloatVector c3 = c0;
        FloatVector c4 = c0;
        FloatVector c5 = c0;
        FloatVector c6 = c0;
        FloatVector c7 = c0;
        FloatVector c8 = c0;
        FloatVector c9 = c0;
        FloatVector c10 = c0;
        FloatVector c11 = c0;
        FloatVector m = FloatVector.broadcast(S, 0.999f);
        FloatVector a = FloatVector.broadcast(S, 0.001f);
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < 64; i++) {
                c0 = c0.fma(m, a);
                c1 = c1.fma(m, a);
                c2 = c2.fma(m, a);
                c3 = c3.fma(m, a);
                c4 = c4.fma(m, a);
                c5 = c5.fma(m, a);
                c6 = c6.fma(m, a);
                c7 = c7.fma(m, a);
                c8 = c8.fma(m, a);
                c9 = c9.fma(m, a);
                c10 = c10.fma(m, a);
                c11 = c11.fma(m, a);
            }
        }
        return c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11)
                .reduceLanes(VectorOperators.ADD);
    }
}
