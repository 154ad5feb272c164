package dev.crashlab.repro;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The register-blocked micro-kernel of the CPU backend's convolutions: C[MR x NR] += A-panel x B-panel over a
 * slice of the reduction, with both panels packed so that each step reads MR consecutive A values and NR
 * consecutive B values.
 *
 * <p>NOTE: {@code MR} rows x {@code NV} vectors of accumulators (6 x 2 = 12 vector registers) plus the {@code NV}
 * B vectors and one broadcast A value stay in registers for the whole reduction slice, so each step does
 * MR x NV fused multiply-adds for NV loads and MR broadcasts. Twelve accumulators, not sixteen: measured here
 * (JDK 25, AVX-512), a 4 x 4 tile ran at 20 GFLOP/s on one core and 6 x 2, 4 x 3 and 3 x 4 tiles at 140-165
 * (the register-only FMA peak is about 190): C2 does not keep sixteen vector accumulators in registers. A-panels are packed as
 * {@code a[k * MR + i]} and B-panels as {@code b[k * NR + j]}; C is row-major with stride {@code ldc}.
 * Requires {@code --add-modules jdk.incubator.vector}; {@link CpuConvBackend} checks for it first.
 */
final class PackedGemm {

    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** Lanes of one vector. */
    static final int L = S.length();
    /** Rows of a micro-tile. */
    static final int MR = 6;
    /** Vectors per micro-tile row. */
    static final int NV = 2;
    /** Columns of a micro-tile. */
    static final int NR = NV * L;

    private PackedGemm() {}

    /** C[cOff + i * ldc + j] += sum over k < kc of a[aOff + k * MR + i] * b[bOff + k * NR + j], a full MR x NR tile. */
    static void tile(float[] a, int aOff, float[] b, int bOff, int kc, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = c00;
        FloatVector c10 = c00;
        FloatVector c11 = c00;
        FloatVector c20 = c00;
        FloatVector c21 = c00;
        FloatVector c30 = c00;
        FloatVector c31 = c00;
        FloatVector c40 = c00;
        FloatVector c41 = c00;
        FloatVector c50 = c00;
        FloatVector c51 = c00;
        int ao = aOff;
        int bo = bOff;
        for (int k = 0; k < kc; k++, ao += MR, bo += NR) {
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao]);
            c00 = b0.fma(av, c00);
            c01 = b1.fma(av, c01);
            av = FloatVector.broadcast(S, a[ao + 1]);
            c10 = b0.fma(av, c10);
            c11 = b1.fma(av, c11);
            av = FloatVector.broadcast(S, a[ao + 2]);
            c20 = b0.fma(av, c20);
            c21 = b1.fma(av, c21);
            av = FloatVector.broadcast(S, a[ao + 3]);
            c30 = b0.fma(av, c30);
            c31 = b1.fma(av, c31);
            av = FloatVector.broadcast(S, a[ao + 4]);
            c40 = b0.fma(av, c40);
            c41 = b1.fma(av, c41);
            av = FloatVector.broadcast(S, a[ao + 5]);
            c50 = b0.fma(av, c50);
            c51 = b1.fma(av, c51);
        }
        addRow(c, cOff, c00, c01);
        addRow(c, cOff + ldc, c10, c11);
        addRow(c, cOff + 2 * ldc, c20, c21);
        addRow(c, cOff + 3 * ldc, c30, c31);
        addRow(c, cOff + 4 * ldc, c40, c41);
        addRow(c, cOff + 5 * ldc, c50, c51);
    }

    private static void addRow(float[] c, int off, FloatVector v0, FloatVector v1) {
        v0.add(FloatVector.fromArray(S, c, off)).intoArray(c, off);
        v1.add(FloatVector.fromArray(S, c, off + L)).intoArray(c, off + L);
    }

    /**
     * The same product for a tile cut by the edge of C: only {@code rows} x {@code cols} of it are added, through
     * {@code scratch[sOff .. sOff + MR * NR)}, which must not overlap the panels.
     */
    static void edgeTile(float[] a, int aOff, float[] b, int bOff, int kc, float[] c, int cOff, int ldc, int rows,
            int cols, float[] scratch, int sOff) {
        java.util.Arrays.fill(scratch, sOff, sOff + MR * NR, 0f);
        tile(a, aOff, b, bOff, kc, scratch, sOff, NR);
        for (int i = 0; i < rows; i++) {
            int ci = cOff + i * ldc;
            int si = sOff + i * NR;
            for (int j = 0; j < cols; j++) {
                c[ci + j] += scratch[si + j];
            }
        }
    }
}
