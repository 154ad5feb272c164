package dev.crashlab.parse.model;

import java.util.Locale;

/**
 * Normalises the spellings of a tensor type ({@code torch.half}, {@code CUDNN_DATA_HALF}, a Keras dtype
 * policy {@code mixed_float16}) to the names {@link dev.crashlab.fact.ConvSpec#dtype()} uses.
 */
final class DtypeNames {

    private DtypeNames() {}

    /** Returns {@code float32}, {@code float16}, {@code bfloat16}, {@code float64}, or null for anything else. */
    static String normalise(String raw) {
        if (raw == null) {
            return null;
        }
        String s = raw.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("torch.")) {
            s = s.substring("torch.".length());
        }
        if (s.startsWith("cudnn_data_")) {
            s = s.substring("cudnn_data_".length());
        }
        if (s.startsWith("mixed_")) {
            s = s.substring("mixed_".length());
        }
        return switch (s) {
            case "float32", "float", "single", "fp32", "tf.float32" -> "float32";
            case "float16", "half", "fp16", "tf.float16" -> "float16";
            case "bfloat16", "bf16", "tf.bfloat16" -> "bfloat16";
            case "float64", "double", "fp64", "tf.float64" -> "float64";
            default -> null;
        };
    }

    /** Returns the policy name where {@code policy} is a mixed one ({@code mixed_float16}), else null. */
    static String mixedPolicy(String policy) {
        if (policy == null) {
            return null;
        }
        String s = policy.strip().toLowerCase(Locale.ROOT);
        return s.startsWith("mixed_") && normalise(s) != null ? s : null;
    }
}
