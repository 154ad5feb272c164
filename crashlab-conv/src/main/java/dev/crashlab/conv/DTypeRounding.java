package dev.crashlab.conv;

/**
 * Rounds float32 values to what a half type can hold (round to nearest even), so a float32 computation sees
 * the same inputs and produces the same stored outputs as one in float16 or bfloat16.
 */
public final class DTypeRounding {

    private DTypeRounding() {}

    /** Rounds one value to {@code dtype}. */
    public static float round(float v, ConvProblem.DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> v;
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16(v));
            case BFLOAT16 -> toBfloat16(v);
        };
    }

    /** Rounds every value of {@code a} in place; float32 leaves it alone. */
    public static void roundInPlace(float[] a, ConvProblem.DType dtype) {
        if (dtype == ConvProblem.DType.FLOAT32) {
            return;
        }
        for (int i = 0; i < a.length; i++) {
            a[i] = round(a[i], dtype);
        }
    }

    private static float toBfloat16(float v) {
        if (Float.isNaN(v)) {
            return v;
        }
        int bits = Float.floatToRawIntBits(v);
        int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
        return Float.intBitsToFloat(rounded & 0xFFFF0000);
    }
}
