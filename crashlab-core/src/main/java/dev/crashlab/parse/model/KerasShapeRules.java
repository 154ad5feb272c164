package dev.crashlab.parse.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Computes the output shape of the non-convolution Keras layers that sit between convolutions (pooling,
 * up-sampling, padding, cropping, merges, reshaping, and the shape-preserving ones), so every convolution
 * of a graph gets its input shape.
 *
 * <p>NOTE: a layer this class does not know, or an unknown input, yields null (unknown) for everything
 * downstream of it; it never guesses.
 */
final class KerasShapeRules {

    /** Layers whose output has their input's shape. */
    private static final Set<String> IDENTITY = Set.of(
            "Activation", "ActivityRegularization", "AlphaDropout", "BatchNormalization", "Dropout", "ELU",
            "GaussianDropout", "GaussianNoise", "GroupNormalization", "Identity", "InputLayer", "LayerNormalization",
            "LeakyReLU", "Masking", "Normalization", "PReLU", "ReLU", "Rescaling", "Softmax", "SpatialDropout1D",
            "SpatialDropout2D", "SpatialDropout3D", "ThresholdedReLU", "UnitNormalization", "BatchNormalizationV1",
            "BatchNormalizationV2", "SyncBatchNormalization");
    private static final Set<String> ELEMENTWISE = Set.of("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum");

    private KerasShapeRules() {}

    /** The output shape of layer class {@code className} on {@code inputs}, or null where unknown. */
    static List<Integer> output(String className, JsonNode config, List<List<Integer>> inputs) {
        if (className == null || inputs.isEmpty()) {
            return null;
        }
        List<Integer> in = inputs.get(0);
        if (IDENTITY.contains(className)) {
            return in;
        }
        if (ELEMENTWISE.contains(className)) {
            return sameShape(inputs);
        }
        if (in == null) {
            return null;
        }
        return switch (className) {
            case "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
                    "AveragePooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D" ->
                    pooling(config, in, rankOf(className));
            case "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D", "GlobalAveragePooling1D",
                    "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
                    "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D" ->
                    globalPooling(config, in, rankOf(className));
            case "UpSampling1D", "UpSampling2D", "UpSampling3D" -> upSampling(config, in, rankOf(className));
            case "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D" -> pad(config, in, rankOf(className), "padding", +1);
            case "Cropping1D", "Cropping2D", "Cropping3D" -> pad(config, in, rankOf(className), "cropping", -1);
            case "Concatenate" -> concatenate(inputs, KerasConfig.first(config, "axis"));
            case "Merge" -> merge(config, inputs);
            case "Flatten" -> flatten(in);
            case "Reshape" -> reshape(config, in);
            case "Dense" -> dense(config, in);
            case "Permute" -> permute(config, in);
            default -> null;
        };
    }

    private static int rankOf(String className) {
        char c = className.charAt(className.length() - 2);
        return c == '3' ? 3 : c == '2' ? 2 : 1;
    }

    private static boolean channelsFirst(JsonNode config) {
        return "channels_first".equals(KerasConvLayer.dataFormat(config));
    }

    /** Indices of the spatial axes of a rank-{@code rank} shape, or null where {@code in} has another length. */
    private static int[] spatialAxes(JsonNode config, List<Integer> in, int rank) {
        if (in.size() != rank + 2) {
            return null;
        }
        int from = channelsFirst(config) ? 2 : 1;
        int[] axes = new int[rank];
        for (int i = 0; i < rank; i++) {
            axes[i] = from + i;
        }
        return axes;
    }

    private static List<Integer> pooling(JsonNode config, List<Integer> in, int rank) {
        int[] axes = spatialAxes(config, in, rank);
        List<Integer> pool = KerasConfig.ints(KerasConfig.first(config, "pool_size", "pool_length"), rank);
        if (axes == null || pool == null) {
            return null;
        }
        List<Integer> strides = KerasConfig.ints(KerasConfig.first(config, "strides", "stride"), rank);
        if (strides == null) {
            strides = pool;
        }
        String padding = KerasConfig.text(config, "padding", "border_mode");
        List<Integer> out = new ArrayList<>(in);
        for (int i = 0; i < rank; i++) {
            out.set(axes[i], ConvArithmetic.pool(in.get(axes[i]), pool.get(i), strides.get(i),
                    padding == null ? "valid" : padding));
        }
        return out;
    }

    private static List<Integer> globalPooling(JsonNode config, List<Integer> in, int rank) {
        if (in.size() != rank + 2) {
            return null;
        }
        boolean first = channelsFirst(config);
        Integer channels = in.get(first ? 1 : rank + 1);
        JsonNode keep = KerasConfig.first(config, "keepdims");
        if (keep != null && keep.asBoolean(false)) {
            List<Integer> out = new ArrayList<>(in);
            for (int i = 0; i < rank; i++) {
                out.set((first ? 2 : 1) + i, 1);
            }
            return out;
        }
        List<Integer> out = new ArrayList<>(2);
        out.add(in.get(0));
        out.add(channels);
        return out;
    }

    private static List<Integer> upSampling(JsonNode config, List<Integer> in, int rank) {
        int[] axes = spatialAxes(config, in, rank);
        List<Integer> size = KerasConfig.ints(KerasConfig.first(config, "size", "length"), rank);
        if (axes == null || size == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>(in);
        for (int i = 0; i < rank; i++) {
            Integer v = in.get(axes[i]);
            out.set(axes[i], v == null ? null : checked((long) v * size.get(i)));
        }
        return out;
    }

    /** Zero padding ({@code sign} +1) or cropping (-1): an int, a pair per axis, or a (begin, end) pair per axis. */
    private static List<Integer> pad(JsonNode config, List<Integer> in, int rank, String key, int sign) {
        int[] axes = spatialAxes(config, in, rank);
        JsonNode p = KerasConfig.first(config, key);
        if (axes == null || p == null) {
            return null;
        }
        long[] total = new long[rank];
        if (p.isIntegralNumber()) {
            Integer v = KerasConfig.asInt(p);
            if (v == null) {
                return null;
            }
            java.util.Arrays.fill(total, 2L * v);
        } else if (p.isArray() && rank == 1 && p.size() == 2 && p.get(0).isIntegralNumber()) {
            Integer a = KerasConfig.asInt(p.get(0));
            Integer b = KerasConfig.asInt(p.get(1));
            if (a == null || b == null) {
                return null;
            }
            total[0] = (long) a + b;
        } else if (p.isArray() && p.size() == rank) {
            for (int i = 0; i < rank; i++) {
                JsonNode e = p.get(i);
                if (e.isIntegralNumber()) {
                    Integer v = KerasConfig.asInt(e);
                    if (v == null) {
                        return null;
                    }
                    total[i] = 2L * v;
                } else if (e.isArray() && e.size() == 2) {
                    Integer a = KerasConfig.asInt(e.get(0));
                    Integer b = KerasConfig.asInt(e.get(1));
                    if (a == null || b == null) {
                        return null;
                    }
                    total[i] = (long) a + b;
                } else {
                    return null;
                }
            }
        } else {
            return null;
        }
        List<Integer> out = new ArrayList<>(in);
        for (int i = 0; i < rank; i++) {
            Integer v = in.get(axes[i]);
            out.set(axes[i], v == null ? null : checked(Math.max(0, v + sign * total[i])));
        }
        return out;
    }

    private static List<Integer> sameShape(List<List<Integer>> inputs) {
        List<Integer> first = inputs.get(0);
        if (first == null) {
            return null;
        }
        // broadcasting merges keep the shape of their inputs; take the first known size per axis
        List<Integer> out = new ArrayList<>(first);
        for (List<Integer> other : inputs) {
            if (other == null || other.size() != out.size()) {
                continue;
            }
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i) == null || out.get(i) == 1) {
                    out.set(i, other.get(i));
                }
            }
        }
        return out;
    }

    private static List<Integer> concatenate(List<List<Integer>> inputs, JsonNode axisNode) {
        List<Integer> first = inputs.get(0);
        int axis = axisNode != null && axisNode.isIntegralNumber() ? axisNode.asInt() : -1;
        if (first == null) {
            return null;
        }
        int a = axis < 0 ? first.size() + axis : axis;
        if (a < 1 || a >= first.size()) {
            return null;
        }
        long sum = 0;
        for (List<Integer> s : inputs) {
            if (s == null || s.size() != first.size() || s.get(a) == null) {
                return null;
            }
            sum += s.get(a);
        }
        List<Integer> out = new ArrayList<>(first);
        out.set(a, checked(sum));
        return out;
    }

    /** Keras 1 {@code Merge}: {@code concat} joins along {@code concat_axis}; sum, mul, ave, max keep the shape. */
    private static List<Integer> merge(JsonNode config, List<List<Integer>> inputs) {
        String mode = KerasConfig.text(config, "mode");
        if (mode == null) {
            return null;
        }
        return switch (mode) {
            case "sum", "mul", "ave", "max", "min" -> sameShape(inputs);
            case "concat" -> concatenate(inputs, KerasConfig.first(config, "concat_axis"));
            default -> null;
        };
    }

    private static List<Integer> flatten(List<Integer> in) {
        long p = 1;
        for (int i = 1; i < in.size(); i++) {
            if (in.get(i) == null) {
                return null;
            }
            p *= in.get(i);
            if (p > Integer.MAX_VALUE) {
                return null;
            }
        }
        List<Integer> out = new ArrayList<>(2);
        out.add(in.get(0));
        out.add((int) p);
        return out;
    }

    private static List<Integer> reshape(JsonNode config, List<Integer> in) {
        JsonNode t = KerasConfig.first(config, "target_shape", "dims");
        if (t == null || !t.isArray() || t.size() > 16) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        out.add(in.get(0));
        int unknownAt = -1;
        long known = 1;
        for (JsonNode e : t) {
            if (e.isIntegralNumber() && e.asInt() == -1 && unknownAt < 0) {
                unknownAt = out.size();
                out.add(null);
                continue;
            }
            Integer v = KerasConfig.asInt(e);
            if (v == null) {
                return null;
            }
            // capped: a product past int range cannot match a real tensor (and must not overflow to 0)
            known = Math.min((long) Integer.MAX_VALUE + 1, known * Math.max(v, 1));
            out.add(v);
        }
        if (unknownAt > 0) {
            List<Integer> flat = flatten(in);
            if (flat != null && known <= Integer.MAX_VALUE && flat.get(1) % known == 0) {
                out.set(unknownAt, (int) (flat.get(1) / known));
            }
        }
        return out;
    }

    private static List<Integer> dense(JsonNode config, List<Integer> in) {
        Integer units = KerasConfig.integer(config, "units", "output_dim");
        if (units == null || in.size() < 2) {
            return null;
        }
        List<Integer> out = new ArrayList<>(in);
        out.set(out.size() - 1, units);
        return out;
    }

    private static List<Integer> permute(JsonNode config, List<Integer> in) {
        JsonNode dims = KerasConfig.first(config, "dims");
        if (dims == null || !dims.isArray() || dims.size() != in.size() - 1) {
            return null;
        }
        List<Integer> out = new ArrayList<>(in.size());
        out.add(in.get(0));
        for (JsonNode d : dims) {
            int i = d.asInt(-1);
            if (i < 1 || i >= in.size()) {
                return null;
            }
            out.add(in.get(i));
        }
        return out;
    }

    private static Integer checked(long v) {
        return v < 0 || v > Integer.MAX_VALUE ? null : (int) v;
    }
}
