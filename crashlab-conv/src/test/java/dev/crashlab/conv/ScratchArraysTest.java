package dev.crashlab.conv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The scratch arrays a CPU backend keeps between passes: handed out zeroed, reused, and dropped when idle. */
class ScratchArraysTest {

    @Test
    void aPassRunAgainTakesTheLastPassesArraysZeroed() {
        ScratchArrays scratch = new ScratchArrays();
        ScratchArrays.Lease first = scratch.lease();
        float[] f = first.floats(1000);
        int[] i = first.ints(10);
        Arrays.fill(f, 3f);
        Arrays.fill(i, 7);
        first.release();
        assertThat(scratch.keptBytes()).isEqualTo(4L * 1010);

        ScratchArrays.Lease second = scratch.lease();
        float[] f2 = second.floats(1000);
        int[] i2 = second.ints(10);
        assertThat(f2).isSameAs(f).containsOnly(0f);
        assertThat(i2).isSameAs(i).containsOnly(0);
        // a second array of the same length in the same pass is a new one: two tasks never share one
        assertThat(second.floats(1000)).isNotSameAs(f);
        assertThat(second.floats(999)).hasSize(999);
        second.release();
        assertThat(scratch.keptBytes()).isEqualTo(4L * (1000 + 10 + 1000 + 999));
    }

    @Test
    void arraysNoPassTookForAFewPassesAreDropped() {
        ScratchArrays scratch = new ScratchArrays();
        ScratchArrays.Lease layer1 = scratch.lease();
        layer1.floats(5000);
        layer1.release();
        for (int pass = 0; pass < ScratchArrays.KEEP_PASSES; pass++) {
            assertThat(scratch.keptBytes()).as("after %d other passes", pass).isGreaterThanOrEqualTo(4L * 5000);
            ScratchArrays.Lease other = scratch.lease();
            other.floats(10);
            other.release();
        }
        assertThat(scratch.keptBytes()).isEqualTo(4L * 10);
    }

    @Test
    void whatIsKeptStaysWithinTheBound() {
        ScratchArrays scratch = new ScratchArrays();
        int n = (int) (ScratchArrays.MAX_KEPT_BYTES / 4 / 3 + 1);
        for (int pass = 0; pass < ScratchArrays.KEEP_PASSES; pass++) {
            ScratchArrays.Lease lease = scratch.lease();
            lease.floats(n + pass); // three lengths, none reused: together they exceed the bound
            lease.release();
            assertThat(scratch.keptBytes()).isLessThanOrEqualTo(ScratchArrays.MAX_KEPT_BYTES);
        }
        // the oldest pass's array went; taking the newest one leaves only the middle one kept
        ScratchArrays.Lease next = scratch.lease();
        assertThat(next.floats(n + 2)).hasSize(n + 2);
        assertThat(scratch.keptBytes()).isEqualTo(4L * (n + 1));
    }
}
