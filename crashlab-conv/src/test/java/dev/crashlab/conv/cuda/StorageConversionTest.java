package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.conv.ConvProblem.DType;
import org.junit.jupiter.api.Test;

class StorageConversionTest {

    @Test
    void bfloat16KeepsTheUpperHalfRoundedToNearestEven() {
        assertThat(StorageConversion.floatToBfloat16(1.0f)).isEqualTo((short) 0x3F80);
        assertThat(StorageConversion.floatToBfloat16(-2.0f)).isEqualTo((short) 0xC000);
        // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even (1.0)
        assertThat(StorageConversion.floatToBfloat16(1.0f + 0x1p-8f)).isEqualTo((short) 0x3F80);
        // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6: goes up to the even
        assertThat(StorageConversion.floatToBfloat16(1.0f + 3 * 0x1p-8f)).isEqualTo((short) 0x3F82);
        // just above halfway rounds up
        assertThat(StorageConversion.floatToBfloat16(Math.nextUp(1.0f + 0x1p-8f))).isEqualTo((short) 0x3F81);
        assertThat(StorageConversion.floatToBfloat16(Float.POSITIVE_INFINITY)).isEqualTo((short) 0x7F80);
        assertThat(Float.isNaN(StorageConversion.bfloat16ToFloat(StorageConversion.floatToBfloat16(Float.NaN)))).isTrue();
        // the largest float rounds to infinity, as a cast does
        assertThat(StorageConversion.bfloat16ToFloat(StorageConversion.floatToBfloat16(Float.MAX_VALUE)))
                .isEqualTo(Float.POSITIVE_INFINITY);
    }

    @Test
    void float16RoundsAndOverflowsAsACastDoes() {
        float[] back = StorageConversion.fromBits(StorageConversion.toBits(
                new float[] {1.0f, 0.1f, 65504f, 70000f, -0.0f, 1e-8f}, DType.FLOAT16), DType.FLOAT16);
        assertThat(back[0]).isEqualTo(1.0f);
        assertThat(back[1]).isEqualTo(0.0999755859375f); // the nearest half to 0.1
        assertThat(back[2]).isEqualTo(65504f);
        assertThat(back[3]).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(Float.floatToRawIntBits(back[4])).isEqualTo(Float.floatToRawIntBits(-0.0f));
        assertThat(back[5]).isZero();
    }

    @Test
    void aRoundTripIsExactForValuesTheTypeHolds() {
        float[] v = {0.5f, -3.25f, 1024f, 0.005859375f};
        for (DType t : DType.values()) {
            for (float f : v) {
                assertThat(StorageConversion.roundTrip(f, t)).as("%s %s", t, f).isEqualTo(f);
            }
        }
        assertThat(StorageConversion.fromBits(StorageConversion.toBits(v, DType.BFLOAT16), DType.BFLOAT16)).containsExactly(v);
    }
}
