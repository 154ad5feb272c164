package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvProblem.DType;

/**
 * Converts float32 host tensors to and from the 16-bit storage types the kernels read and write, rounding to
 * nearest-even as a framework does when it casts (so the reporter's rounding shows in the numeric check).
 */
final class StorageConversion {

    private StorageConversion() {
    }

    /** Rounds each value to {@code dtype} (FLOAT16 or BFLOAT16), as raw 16-bit patterns. */
    static short[] toBits(float[] values, DType dtype) {
        short[] out = new short[values.length];
        switch (dtype) {
            case FLOAT16 -> {
                for (int i = 0; i < values.length; i++) {
                    out[i] = Float.floatToFloat16(values[i]);
                }
            }
            case BFLOAT16 -> {
                for (int i = 0; i < values.length; i++) {
                    out[i] = floatToBfloat16(values[i]);
                }
            }
            case FLOAT32 -> throw new IllegalArgumentException("float32 tensors are not converted");
        }
        return out;
    }

    /** Widens 16-bit patterns of {@code dtype} to float32 (exact). */
    static float[] fromBits(short[] bits, DType dtype) {
        float[] out = new float[bits.length];
        switch (dtype) {
            case FLOAT16 -> {
                for (int i = 0; i < bits.length; i++) {
                    out[i] = Float.float16ToFloat(bits[i]);
                }
            }
            case BFLOAT16 -> {
                for (int i = 0; i < bits.length; i++) {
                    out[i] = bfloat16ToFloat(bits[i]);
                }
            }
            case FLOAT32 -> throw new IllegalArgumentException("float32 tensors are not converted");
        }
        return out;
    }

    /** bfloat16 is the upper half of a float32; round the lower half away to nearest-even, keeping NaN a NaN. */
    static short floatToBfloat16(float v) {
        int bits = Float.floatToRawIntBits(v);
        if (Float.isNaN(v)) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }

    static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** Rounds a float32 value through {@code dtype} and back (identity for FLOAT32). */
    static float roundTrip(float v, DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> v;
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16(v));
            case BFLOAT16 -> bfloat16ToFloat(floatToBfloat16(v));
        };
    }
}
