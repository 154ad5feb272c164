package dev.crashlab.conv;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The register-blocked micro-kernel of the CPU backend's convolutions: C[MR x NR] += A-panel x B-panel over a
 * slice of the reduction, with both panels packed so that each step reads MR consecutive A values and NR
 * consecutive B values.
 *
 * <p>NOTE: {@code MR} rows x {@code NV} vectors of accumulators (8 x 2 = 16 vector registers) plus the {@code NV}
 * B vectors and one broadcast A value stay in registers for the whole reduction slice, so each step does
 * MR x NV fused multiply-adds for NV loads and MR broadcasts. Measured here (JDK 25, AVX-512, one core of a
 * shared machine, GFLOP per CPU-second): 8 x 2 ran at 135-155, 6 x 2 at 100-130 and 4 x 3 at 100-140, against
 * a register-only FMA peak of about 170; the broadcasts, not the loads, limit the narrower tiles. The
 * accumulators start from C and are stored back, not started at zero and added at the end: with the latter,
 * C2 (JDK 25) compiled the same loop to a tenth of the speed (13 against 139). A-panels are packed as
 * {@code a[k * MR + i]} and B-panels as {@code b[k * NR + j]}; C is row-major with stride {@code ldc}.
 * Requires {@code --add-modules jdk.incubator.vector}; {@link CpuConvBackend} checks for it first.
 */
final class PackedGemm {

    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** Lanes of one vector. */
    static final int L = S.length();
    /** Rows of a micro-tile. */
    static final int MR = 8;
    /** Vectors per micro-tile row. */
    static final int NV = 2;
    /** Columns of a micro-tile. */
    static final int NR = NV * L;

    private PackedGemm() {}

    /** C[cOff + i * ldc + j] += sum over k < kc of a[aOff + k * MR + i] * b[bOff + k * NR + j], a full MR x NR tile. */
    static void tile(float[] a, int aOff, float[] b, int bOff, int kc, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.fromArray(S, c, cOff + 0 * ldc);
        FloatVector c01 = FloatVector.fromArray(S, c, cOff + 0 * ldc + L);
        FloatVector c10 = FloatVector.fromArray(S, c, cOff + 1 * ldc);
        FloatVector c11 = FloatVector.fromArray(S, c, cOff + 1 * ldc + L);
        FloatVector c20 = FloatVector.fromArray(S, c, cOff + 2 * ldc);
        FloatVector c21 = FloatVector.fromArray(S, c, cOff + 2 * ldc + L);
        FloatVector c30 = FloatVector.fromArray(S, c, cOff + 3 * ldc);
        FloatVector c31 = FloatVector.fromArray(S, c, cOff + 3 * ldc + L);
        FloatVector c40 = FloatVector.fromArray(S, c, cOff + 4 * ldc);
        FloatVector c41 = FloatVector.fromArray(S, c, cOff + 4 * ldc + L);
        FloatVector c50 = FloatVector.fromArray(S, c, cOff + 5 * ldc);
        FloatVector c51 = FloatVector.fromArray(S, c, cOff + 5 * ldc + L);
        FloatVector c60 = FloatVector.fromArray(S, c, cOff + 6 * ldc);
        FloatVector c61 = FloatVector.fromArray(S, c, cOff + 6 * ldc + L);
        FloatVector c70 = FloatVector.fromArray(S, c, cOff + 7 * ldc);
        FloatVector c71 = FloatVector.fromArray(S, c, cOff + 7 * ldc + L);
        int ao = aOff;
        int bo = bOff;
        for (int k = 0; k < kc; k++, ao += MR, bo += NR) {
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao + 0]);
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
            av = FloatVector.broadcast(S, a[ao + 6]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, a[ao + 7]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        setRow(c, cOff + 0 * ldc, c00, c01);
        setRow(c, cOff + 1 * ldc, c10, c11);
        setRow(c, cOff + 2 * ldc, c20, c21);
        setRow(c, cOff + 3 * ldc, c30, c31);
        setRow(c, cOff + 4 * ldc, c40, c41);
        setRow(c, cOff + 5 * ldc, c50, c51);
        setRow(c, cOff + 6 * ldc, c60, c61);
        setRow(c, cOff + 7 * ldc, c70, c71);
    }

    /** C[cOff + i * ldc + j] = sum over k < kc of a[aOff + k * MR + i] * b[bOff + k * NR + j], a full MR x NR tile. */
    static void tileStore(float[] a, int aOff, float[] b, int bOff, int kc, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S);
        FloatVector c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S);
        FloatVector c51 = FloatVector.zero(S);
        FloatVector c60 = FloatVector.zero(S);
        FloatVector c61 = FloatVector.zero(S);
        FloatVector c70 = FloatVector.zero(S);
        FloatVector c71 = FloatVector.zero(S);
        int ao = aOff;
        int bo = bOff;
        for (int k = 0; k < kc; k++, ao += MR, bo += NR) {
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao + 0]);
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
            av = FloatVector.broadcast(S, a[ao + 6]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, a[ao + 7]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        setRow(c, cOff + 0 * ldc, c00, c01);
        setRow(c, cOff + 1 * ldc, c10, c11);
        setRow(c, cOff + 2 * ldc, c20, c21);
        setRow(c, cOff + 3 * ldc, c30, c31);
        setRow(c, cOff + 4 * ldc, c40, c41);
        setRow(c, cOff + 5 * ldc, c50, c51);
        setRow(c, cOff + 6 * ldc, c60, c61);
        setRow(c, cOff + 7 * ldc, c70, c71);
    }

    /**
     * {@link #tile} with B row k at {@code b[bOffs[oOff + k]] ..} instead of {@code b[bOff + k * NR] ..}: rows that are
     * windows, at their taps' offsets, of one packed run per channel (ShiftConv's forward of unit-stride layers).
     */
    static void tileAt(float[] a, int aOff, float[] b, int[] bOffs, int oOff, int kc, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.fromArray(S, c, cOff + 0 * ldc);
        FloatVector c01 = FloatVector.fromArray(S, c, cOff + 0 * ldc + L);
        FloatVector c10 = FloatVector.fromArray(S, c, cOff + 1 * ldc);
        FloatVector c11 = FloatVector.fromArray(S, c, cOff + 1 * ldc + L);
        FloatVector c20 = FloatVector.fromArray(S, c, cOff + 2 * ldc);
        FloatVector c21 = FloatVector.fromArray(S, c, cOff + 2 * ldc + L);
        FloatVector c30 = FloatVector.fromArray(S, c, cOff + 3 * ldc);
        FloatVector c31 = FloatVector.fromArray(S, c, cOff + 3 * ldc + L);
        FloatVector c40 = FloatVector.fromArray(S, c, cOff + 4 * ldc);
        FloatVector c41 = FloatVector.fromArray(S, c, cOff + 4 * ldc + L);
        FloatVector c50 = FloatVector.fromArray(S, c, cOff + 5 * ldc);
        FloatVector c51 = FloatVector.fromArray(S, c, cOff + 5 * ldc + L);
        FloatVector c60 = FloatVector.fromArray(S, c, cOff + 6 * ldc);
        FloatVector c61 = FloatVector.fromArray(S, c, cOff + 6 * ldc + L);
        FloatVector c70 = FloatVector.fromArray(S, c, cOff + 7 * ldc);
        FloatVector c71 = FloatVector.fromArray(S, c, cOff + 7 * ldc + L);
        int ao = aOff;
        for (int k = 0; k < kc; k++, ao += MR) {
            int bo = bOffs[oOff + k];
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao + 0]);
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
            av = FloatVector.broadcast(S, a[ao + 6]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, a[ao + 7]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        setRow(c, cOff + 0 * ldc, c00, c01);
        setRow(c, cOff + 1 * ldc, c10, c11);
        setRow(c, cOff + 2 * ldc, c20, c21);
        setRow(c, cOff + 3 * ldc, c30, c31);
        setRow(c, cOff + 4 * ldc, c40, c41);
        setRow(c, cOff + 5 * ldc, c50, c51);
        setRow(c, cOff + 6 * ldc, c60, c61);
        setRow(c, cOff + 7 * ldc, c70, c71);
    }

    /** {@link #tileStore} with B rows where {@link #tileAt} finds them. */
    static void tileStoreAt(float[] a, int aOff, float[] b, int[] bOffs, int oOff, int kc, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S);
        FloatVector c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S);
        FloatVector c51 = FloatVector.zero(S);
        FloatVector c60 = FloatVector.zero(S);
        FloatVector c61 = FloatVector.zero(S);
        FloatVector c70 = FloatVector.zero(S);
        FloatVector c71 = FloatVector.zero(S);
        int ao = aOff;
        for (int k = 0; k < kc; k++, ao += MR) {
            int bo = bOffs[oOff + k];
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao + 0]);
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
            av = FloatVector.broadcast(S, a[ao + 6]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, a[ao + 7]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        setRow(c, cOff + 0 * ldc, c00, c01);
        setRow(c, cOff + 1 * ldc, c10, c11);
        setRow(c, cOff + 2 * ldc, c20, c21);
        setRow(c, cOff + 3 * ldc, c30, c31);
        setRow(c, cOff + 4 * ldc, c40, c41);
        setRow(c, cOff + 5 * ldc, c50, c51);
        setRow(c, cOff + 6 * ldc, c60, c61);
        setRow(c, cOff + 7 * ldc, c70, c71);
    }

    /**
     * The product of {@link #tileStore}, its MR rows added into {@code x} straight from the registers: row i onto {@code x[offs[oOff + i] + base ..]}, in row order (no tile in memory for {@link #addRows} to read back). The
     * rows' ranges must not overlap: a row's load right after an overlapping row's store would wait for that store (a
     * CPU cannot forward a store to a load that straddles it). The adds are written out here, not in a helper: a 43-byte
     * helper called once per tile was not inlined, and the accumulators passed to it were boxed (five times slower).
     */
    static void tileAdd(float[] a, int aOff, float[] b, int bOff, int kc, float[] x, int[] offs, int oOff, int base) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S);
        FloatVector c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S);
        FloatVector c51 = FloatVector.zero(S);
        FloatVector c60 = FloatVector.zero(S);
        FloatVector c61 = FloatVector.zero(S);
        FloatVector c70 = FloatVector.zero(S);
        FloatVector c71 = FloatVector.zero(S);
        int ao = aOff;
        int bo = bOff;
        for (int k = 0; k < kc; k++, ao += MR, bo += NR) {
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, a[ao + 0]);
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
            av = FloatVector.broadcast(S, a[ao + 6]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, a[ao + 7]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        int o0 = offs[oOff + 0] + base;
        FloatVector.fromArray(S, x, o0).add(c00).intoArray(x, o0);
        FloatVector.fromArray(S, x, o0 + L).add(c01).intoArray(x, o0 + L);
        int o1 = offs[oOff + 1] + base;
        FloatVector.fromArray(S, x, o1).add(c10).intoArray(x, o1);
        FloatVector.fromArray(S, x, o1 + L).add(c11).intoArray(x, o1 + L);
        int o2 = offs[oOff + 2] + base;
        FloatVector.fromArray(S, x, o2).add(c20).intoArray(x, o2);
        FloatVector.fromArray(S, x, o2 + L).add(c21).intoArray(x, o2 + L);
        int o3 = offs[oOff + 3] + base;
        FloatVector.fromArray(S, x, o3).add(c30).intoArray(x, o3);
        FloatVector.fromArray(S, x, o3 + L).add(c31).intoArray(x, o3 + L);
        int o4 = offs[oOff + 4] + base;
        FloatVector.fromArray(S, x, o4).add(c40).intoArray(x, o4);
        FloatVector.fromArray(S, x, o4 + L).add(c41).intoArray(x, o4 + L);
        int o5 = offs[oOff + 5] + base;
        FloatVector.fromArray(S, x, o5).add(c50).intoArray(x, o5);
        FloatVector.fromArray(S, x, o5 + L).add(c51).intoArray(x, o5 + L);
        int o6 = offs[oOff + 6] + base;
        FloatVector.fromArray(S, x, o6).add(c60).intoArray(x, o6);
        FloatVector.fromArray(S, x, o6 + L).add(c61).intoArray(x, o6 + L);
        int o7 = offs[oOff + 7] + base;
        FloatVector.fromArray(S, x, o7).add(c70).intoArray(x, o7);
        FloatVector.fromArray(S, x, o7 + L).add(c71).intoArray(x, o7 + L);
    }


    /**
     * C[cOff + i * NR + j] += sum over k < kc of x[offs[oOff + i] + base + k] * b[bOff + k * NR + j]: the A panel
     * read straight from the (padded) input, row i starting at {@code offs[oOff + i] + base}.
     */
    static void tileCols(float[] x, int[] offs, int oOff, int base, float[] b, int bOff, int kc, float[] c, int cOff) {
        FloatVector c00 = FloatVector.fromArray(S, c, cOff + 0 * NR);
        FloatVector c01 = FloatVector.fromArray(S, c, cOff + 0 * NR + L);
        FloatVector c10 = FloatVector.fromArray(S, c, cOff + 1 * NR);
        FloatVector c11 = FloatVector.fromArray(S, c, cOff + 1 * NR + L);
        FloatVector c20 = FloatVector.fromArray(S, c, cOff + 2 * NR);
        FloatVector c21 = FloatVector.fromArray(S, c, cOff + 2 * NR + L);
        FloatVector c30 = FloatVector.fromArray(S, c, cOff + 3 * NR);
        FloatVector c31 = FloatVector.fromArray(S, c, cOff + 3 * NR + L);
        FloatVector c40 = FloatVector.fromArray(S, c, cOff + 4 * NR);
        FloatVector c41 = FloatVector.fromArray(S, c, cOff + 4 * NR + L);
        FloatVector c50 = FloatVector.fromArray(S, c, cOff + 5 * NR);
        FloatVector c51 = FloatVector.fromArray(S, c, cOff + 5 * NR + L);
        FloatVector c60 = FloatVector.fromArray(S, c, cOff + 6 * NR);
        FloatVector c61 = FloatVector.fromArray(S, c, cOff + 6 * NR + L);
        FloatVector c70 = FloatVector.fromArray(S, c, cOff + 7 * NR);
        FloatVector c71 = FloatVector.fromArray(S, c, cOff + 7 * NR + L);
        int o0 = offs[oOff + 0] + base;
        int o1 = offs[oOff + 1] + base;
        int o2 = offs[oOff + 2] + base;
        int o3 = offs[oOff + 3] + base;
        int o4 = offs[oOff + 4] + base;
        int o5 = offs[oOff + 5] + base;
        int o6 = offs[oOff + 6] + base;
        int o7 = offs[oOff + 7] + base;
        int bo = bOff;
        for (int k = 0; k < kc; k++, bo += NR) {
            FloatVector b0 = FloatVector.fromArray(S, b, bo);
            FloatVector b1 = FloatVector.fromArray(S, b, bo + L);
            FloatVector av = FloatVector.broadcast(S, x[o0 + k]);
            c00 = b0.fma(av, c00);
            c01 = b1.fma(av, c01);
            av = FloatVector.broadcast(S, x[o1 + k]);
            c10 = b0.fma(av, c10);
            c11 = b1.fma(av, c11);
            av = FloatVector.broadcast(S, x[o2 + k]);
            c20 = b0.fma(av, c20);
            c21 = b1.fma(av, c21);
            av = FloatVector.broadcast(S, x[o3 + k]);
            c30 = b0.fma(av, c30);
            c31 = b1.fma(av, c31);
            av = FloatVector.broadcast(S, x[o4 + k]);
            c40 = b0.fma(av, c40);
            c41 = b1.fma(av, c41);
            av = FloatVector.broadcast(S, x[o5 + k]);
            c50 = b0.fma(av, c50);
            c51 = b1.fma(av, c51);
            av = FloatVector.broadcast(S, x[o6 + k]);
            c60 = b0.fma(av, c60);
            c61 = b1.fma(av, c61);
            av = FloatVector.broadcast(S, x[o7 + k]);
            c70 = b0.fma(av, c70);
            c71 = b1.fma(av, c71);
        }
        setRow(c, cOff + 0 * NR, c00, c01);
        setRow(c, cOff + 1 * NR, c10, c11);
        setRow(c, cOff + 2 * NR, c20, c21);
        setRow(c, cOff + 3 * NR, c30, c31);
        setRow(c, cOff + 4 * NR, c40, c41);
        setRow(c, cOff + 5 * NR, c50, c51);
        setRow(c, cOff + 6 * NR, c60, c61);
        setRow(c, cOff + 7 * NR, c70, c71);
    }

    /**
     * Packs {@code kc} rows of NR floats into {@code dst[k * NR ..]}: row k is {@code x[offs[oOff + k] + base ..]} (to {@code dst[dOff + k * NR ..]}), a
     * row of the im2col matrix read from the (padded) input, so that {@link #tile} reads it contiguously.
     */
    static void packRows(float[] x, int[] offs, int oOff, int base, int kc, float[] dst, int dOff) {
        for (int k = 0; k < kc; k++) {
            int o = offs[oOff + k] + base;
            FloatVector.fromArray(S, x, o).intoArray(dst, dOff + k * NR);
            FloatVector.fromArray(S, x, o + L).intoArray(dst, dOff + k * NR + L);
        }
    }

    /**
     * Adds the first {@code rows} rows of the MR x NR tile {@code c} into {@code x}: row i onto
     * {@code x[offs[oOff + i] + base ..]} (the adjoint of {@link #packRows}).
     */
    static void addRows(float[] c, int rows, float[] x, int[] offs, int oOff, int base) {
        for (int i = 0; i < rows; i++) {
            int o = offs[oOff + i] + base;
            FloatVector.fromArray(S, x, o).add(FloatVector.fromArray(S, c, i * NR)).intoArray(x, o);
            FloatVector.fromArray(S, x, o + L).add(FloatVector.fromArray(S, c, i * NR + L)).intoArray(x, o + L);
        }
    }

    private static void setRow(float[] c, int off, FloatVector v0, FloatVector v1) {
        v0.intoArray(c, off);
        v1.intoArray(c, off + L);
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
