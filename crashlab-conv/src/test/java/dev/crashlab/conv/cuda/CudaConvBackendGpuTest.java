package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crashlab.conv.ConvBackend.BackendException;
import dev.crashlab.conv.ConvBackend.OutOfMemory;
import dev.crashlab.conv.ConvBackend.PassResult;
import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs the kernels on a real device against {@link NaiveConvolution}: random shapes in every storage type,
 * all three passes, and out-of-memory under a cap. Skipped with the probe's reason where there is no device.
 */
class CudaConvBackendGpuTest {

    static final long MIB = 1024 * 1024;
    static CudaConvBackend backend;

    @BeforeAll
    static void device() {
        backend = new CudaConvBackend();
        backend.deviceInfo().ifPresent(d -> System.out.println("CUDA device: " + d));
    }

    @BeforeEach
    void requireDevice() {
        // per test, so each shows as skipped with the reason
        assumeTrue(backend.unavailableReason().isEmpty(), () -> backend.unavailableReason().orElseThrow());
    }

    @AfterAll
    static void close() {
        if (backend != null) {
            backend.close();
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void randomProblemsMatchTheReferenceInAllThreePasses(DType dtype) throws BackendException {
        long seed = new Random().nextLong();
        System.out.println("CudaConvBackendGpuTest " + dtype + " seed " + seed);
        Random random = new Random(seed);
        int cases = dtype == DType.FLOAT32 ? 120 : 40;
        for (int i = 0; i < cases; i++) {
            // every 4th: channels up to 3 x 80 (several column tiles per group) on small images, else larger images
            boolean wide = i % 4 == 0;
            ConvProblem p = RandomConvProblems.next(random, i, dtype, wide ? 80 : 12, wide ? 5 : 20);
            // the reference sees the inputs as the device stores them
            float[] x = rounded(RandomConvProblems.tensor(random, p.inputElements()), dtype);
            float[] w = rounded(RandomConvProblems.tensor(random, p.filterElements()), dtype);
            float[] dy = rounded(RandomConvProblems.tensor(random, p.outputElements()), dtype);
            String what = "seed " + seed + ", " + p;
            check(what + " forward", backend.forward(p, x, w), NaiveConvolution.forward(p, x, w), dtype);
            check(what + " backward-data", backend.backwardData(p, dy, w), NaiveConvolution.backwardData(p, dy, w), dtype);
            check(what + " backward-filter", backend.backwardFilter(p, x, dy), NaiveConvolution.backwardFilter(p, x, dy), dtype);
        }
    }

    private static float[] rounded(float[] v, DType dtype) {
        for (int i = 0; i < v.length; i++) {
            v[i] = StorageConversion.roundTrip(v[i], dtype);
        }
        return v;
    }

    /**
     * Each element within the float32 summation bound (terms x 2^-24 x the sum of |products|, doubled for the
     * order the slices add in), plus the output's rounding to the storage type. A wrong index misses or adds
     * whole products, far above that.
     */
    private static void check(String what, PassResult got, NaiveConvolution.Reference want, DType dtype) {
        assertThat(got.output()).as(what).hasSize(want.values().length);
        assertThat(got.kernelMillis()).as(what + " kernel time").isGreaterThan(0);
        assertThat(got.peakBytes()).as(what + " peak").isGreaterThan(0);
        double storage = switch (dtype) {
            case FLOAT32 -> 0;
            case FLOAT16 -> 0x1p-11;
            case BFLOAT16 -> 0x1p-8;
        };
        double accumulate = 2.0 * want.terms() * 0x1p-24;
        for (int i = 0; i < want.values().length; i++) {
            double ref = want.values()[i];
            double tolerance = accumulate * want.magnitudes()[i] + storage * (Math.abs(ref) + accumulate * want.magnitudes()[i]) + 1e-30;
            double error = Math.abs(got.output()[i] - ref);
            if (!(error <= tolerance)) {
                throw new AssertionError(what + ": element " + i + " is " + got.output()[i] + ", expected " + ref
                        + " within " + tolerance);
            }
        }
    }

    @Test
    void peakMemoryIsTheTensorsOfThePass() throws BackendException {
        ConvProblem p = ConvGeometryTest.conv(2, 2, 8, new int[] {30, 30}, 16, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        Random random = new Random(1);
        PassResult r = backend.forward(p, RandomConvProblems.tensor(random, p.inputElements()),
                RandomConvProblems.tensor(random, p.filterElements()));
        long expected = DeviceMemoryBudget.charged(p.inputElements() * 4) + DeviceMemoryBudget.charged(p.filterElements() * 4)
                + DeviceMemoryBudget.charged(p.outputElements() * 4);
        assertThat(r.peakBytes()).isEqualTo(expected);
    }

    @Test
    void anAllocationOverTheCapIsTheReportersOutOfMemoryAndTheBackendRecovers() throws BackendException {
        // 64 x 64 x 56 x 56 float32: x and y 51.4 MB each, w 147 KB; a 60 MiB card holds x and w but not y
        ConvProblem p = ConvGeometryTest.conv(2, 64, 64, new int[] {56, 56}, 64, new int[] {3, 3}, new int[] {1, 1},
                new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false);
        Random random = new Random(2);
        float[] x = RandomConvProblems.tensor(random, p.inputElements());
        float[] w = RandomConvProblems.tensor(random, p.filterElements());
        try {
            backend.memoryCap(60 * MIB);
            assertThatThrownBy(() -> backend.forward(p, x, w)).isInstanceOfSatisfying(OutOfMemory.class, e -> {
                assertThat(e.getMessage()).contains("y (output)");
                assertThat(e.requestedBytes()).isEqualTo(p.outputElements() * 4);
                assertThat(e.availableBytes()).isEqualTo(60 * MIB - DeviceMemoryBudget.charged(p.inputElements() * 4)
                        - DeviceMemoryBudget.charged(p.filterElements() * 4));
            });
            backend.memoryCap(1 * MIB);
            assertThatThrownBy(() -> backend.forward(p, x, w)).isInstanceOfSatisfying(OutOfMemory.class,
                    e -> assertThat(e.getMessage()).contains("x (input)"));
        } finally {
            backend.memoryCap(0);
        }
        // everything the refused passes allocated was freed: the same pass now runs
        PassResult r = backend.forward(p, x, w);
        assertThat(r.output()).hasSize((int) p.outputElements());
    }
}
