package dev.crashlab.parse.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads typed values out of a Keras layer {@code config} object, where one setting has several spellings
 * across Keras 1, 2, 3 and TensorFlow.js (an int or a list, {@code nb_row}/{@code nb_col} or
 * {@code kernel_size}, a dtype string or a policy object).
 */
final class KerasConfig {

    /** The largest dimension, kernel or stride accepted; anything bigger is garbage, not a model. */
    static final int MAX_DIM = 1 << 30;

    private KerasConfig() {}

    /** The first present, non-null member of {@code node} among {@code keys}, or null. */
    static JsonNode first(JsonNode node, String... keys) {
        if (node == null || !node.isObject()) {
            return null;
        }
        for (String k : keys) {
            JsonNode v = node.get(k);
            if (v != null && !v.isNull()) {
                return v;
            }
        }
        return null;
    }

    /** A text member, or null. */
    static String text(JsonNode node, String... keys) {
        JsonNode v = first(node, keys);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** A non-negative int member within {@link #MAX_DIM}, or null. */
    static Integer integer(JsonNode node, String... keys) {
        return asInt(first(node, keys));
    }

    /** {@code v} as a non-negative int within {@link #MAX_DIM}, or null. */
    static Integer asInt(JsonNode v) {
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            return null;
        }
        int i = v.asInt();
        return i >= 0 && i <= MAX_DIM ? i : null;
    }

    /**
     * An int-or-list setting expanded to {@code rank} entries (Keras writes {@code 3} or {@code [3, 3]});
     * null when absent or malformed.
     */
    static List<Integer> ints(JsonNode v, int rank) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber()) {
            Integer i = asInt(v);
            return i == null ? null : Collections.nCopies(rank, i);
        }
        if (!v.isArray() || v.size() != rank) {
            return null;
        }
        List<Integer> out = new ArrayList<>(rank);
        for (JsonNode e : v) {
            Integer i = asInt(e);
            if (i == null) {
                return null;
            }
            out.add(i);
        }
        return out;
    }

    /** A shape list ({@code [null, 28, 28, 1]}), nulls kept; null when absent or malformed. */
    static List<Integer> shape(JsonNode v) {
        if (v == null || !v.isArray() || v.size() > 16) {
            return null;
        }
        List<Integer> out = new ArrayList<>(v.size());
        for (JsonNode e : v) {
            if (e.isNull()) {
                out.add(null);
            } else {
                Integer i = asInt(e);
                if (i == null) {
                    return null;
                }
                out.add(i);
            }
        }
        return out;
    }

    /**
     * The dtype policy's name: a plain string ({@code "float32"}) or a policy object
     * ({@code {"class_name": "DTypePolicy", "config": {"name": "mixed_float16"}}}); null when absent.
     */
    static String dtypePolicy(JsonNode config) {
        JsonNode d = first(config, "dtype", "input_dtype");
        if (d == null) {
            return null;
        }
        if (d.isTextual()) {
            return d.asText();
        }
        return text(first(d, "config"), "name");
    }
}
