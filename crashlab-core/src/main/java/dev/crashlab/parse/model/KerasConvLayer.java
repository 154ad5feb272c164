package dev.crashlab.parse.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Reads a Keras convolution layer's config (Keras 1 {@code Convolution2D} with {@code nb_filter},
 * {@code nb_row}/{@code nb_col}, {@code subsample}, {@code border_mode}, {@code dim_ordering}; Keras 2/3 and
 * TF.js {@code Conv2D} with {@code filters}, {@code kernel_size}, ...) and works out its output shape.
 */
final class KerasConvLayer {

    /** A class name's normalised kind and rank. */
    record Kind(String kind, int rank) {}

    private static final Map<String, Kind> KINDS = Map.ofEntries(
            Map.entry("Conv1D", new Kind("Conv1D", 1)),
            Map.entry("Convolution1D", new Kind("Conv1D", 1)),
            Map.entry("AtrousConvolution1D", new Kind("Conv1D", 1)),
            Map.entry("Conv2D", new Kind("Conv2D", 2)),
            Map.entry("Convolution2D", new Kind("Conv2D", 2)),
            Map.entry("AtrousConvolution2D", new Kind("Conv2D", 2)),
            Map.entry("Conv3D", new Kind("Conv3D", 3)),
            Map.entry("Convolution3D", new Kind("Conv3D", 3)),
            Map.entry("Conv1DTranspose", new Kind("Conv1DTranspose", 1)),
            Map.entry("Convolution1DTranspose", new Kind("Conv1DTranspose", 1)),
            Map.entry("Conv2DTranspose", new Kind("Conv2DTranspose", 2)),
            Map.entry("Convolution2DTranspose", new Kind("Conv2DTranspose", 2)),
            Map.entry("Deconvolution2D", new Kind("Conv2DTranspose", 2)),
            Map.entry("Conv3DTranspose", new Kind("Conv3DTranspose", 3)),
            Map.entry("Convolution3DTranspose", new Kind("Conv3DTranspose", 3)),
            Map.entry("Deconvolution3D", new Kind("Conv3DTranspose", 3)),
            Map.entry("SeparableConv1D", new Kind("SeparableConv1D", 1)),
            Map.entry("SeparableConvolution1D", new Kind("SeparableConv1D", 1)),
            Map.entry("SeparableConv2D", new Kind("SeparableConv2D", 2)),
            Map.entry("SeparableConvolution2D", new Kind("SeparableConv2D", 2)),
            Map.entry("DepthwiseConv1D", new Kind("DepthwiseConv1D", 1)),
            Map.entry("DepthwiseConv2D", new Kind("DepthwiseConv2D", 2)));

    private KerasConvLayer() {}

    /** The kind of a Keras class name, or null where it is not a convolution. */
    static Kind kindOf(String className) {
        return className == null ? null : KINDS.get(className);
    }

    /**
     * The kind of a class name that a summary column may have cut short ({@code Conv2DTra}): the one class
     * it begins; null where none or several do.
     */
    static Kind kindOfPrefix(String prefix) {
        Kind exact = kindOf(prefix);
        if (exact != null || prefix == null || prefix.length() < 4) {
            return exact;
        }
        Kind found = null;
        for (Map.Entry<String, Kind> e : KINDS.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                if (found != null && !found.equals(e.getValue())) {
                    return null;
                }
                found = e.getValue();
            }
        }
        return found;
    }

    /**
     * Reads the settings of a convolution layer of class {@code className} from {@code config}; null where
     * the class is not a convolution. Shapes are filled later by {@link #connect}.
     */
    static ConvDraft read(String className, JsonNode config) {
        Kind k = kindOf(className);
        if (k == null) {
            return null;
        }
        int rank = k.rank();
        ConvDraft d = new ConvDraft(k.kind(), rank);
        d.sourceClassName = className.equals(k.kind()) ? null : className;
        d.name = KerasConfig.text(config, "name");
        boolean legacy = KerasConfig.first(config, "nb_filter", "border_mode", "subsample", "subsample_length") != null;
        // NOTE: a setting a config leaves out takes the class default (strides 1, padding valid, dilation 1,
        // groups 1): that is what the model runs, so it is read, not inferred
        d.filters = KerasConfig.integer(config, "filters", "nb_filter");
        d.kernel = kernel(config, rank);
        d.strides = KerasConfig.ints(KerasConfig.first(config, "strides", "subsample", "subsample_length"), rank);
        if (d.strides == null) {
            d.strides = Collections.nCopies(rank, 1);
        }
        d.padding = KerasConfig.text(config, "padding", "border_mode");
        if (d.padding == null) {
            d.padding = "valid";
        }
        d.dilation = KerasConfig.ints(KerasConfig.first(config, "dilation_rate", "atrous_rate"), rank);
        if (d.dilation == null) {
            d.dilation = Collections.nCopies(rank, 1);
        }
        d.dataFormat = dataFormat(config);
        if (d.depthwise() || d.kind.startsWith("Separable")) {
            d.depthMultiplier = KerasConfig.integer(config, "depth_multiplier");
            if (d.depthMultiplier == null) {
                d.depthMultiplier = 1;
            }
        }
        d.groups = d.depthwise() ? null : KerasConfig.integer(config, "groups");
        if (d.groups == null && !d.depthwise()) {
            d.groups = 1;
        }
        String policy = KerasConfig.dtypePolicy(config);
        d.dtype = DtypeNames.normalise(policy);
        d.mixedPrecision = DtypeNames.mixedPolicy(policy);
        if (policy == null && legacy) {
            // Keras 1 layers have no dtype of their own: they compute in floatx, float32 unless keras.json says otherwise
            d.dtype = "float32";
            d.inferred("dtype");
        }
        return d;
    }

    private static List<Integer> kernel(JsonNode config, int rank) {
        List<Integer> k = KerasConfig.ints(KerasConfig.first(config, "kernel_size", "filter_length"), rank);
        if (k != null) {
            return k;
        }
        List<Integer> legacy = new ArrayList<>(rank);
        String[] keys = rank == 3 ? new String[] {"kernel_dim1", "kernel_dim2", "kernel_dim3"}
                : rank == 2 ? new String[] {"nb_row", "nb_col"} : new String[] {"filter_length"};
        for (String key : keys) {
            Integer v = KerasConfig.integer(config, key);
            if (v == null) {
                return null;
            }
            legacy.add(v);
        }
        return legacy;
    }

    /** {@code data_format}, or Keras 1 {@code dim_ordering} ({@code th} is channels first); channels last by default. */
    static String dataFormat(JsonNode config) {
        String f = KerasConfig.text(config, "data_format");
        if ("channels_first".equals(f) || "channels_last".equals(f)) {
            return f;
        }
        String o = KerasConfig.text(config, "dim_ordering");
        if ("th".equals(o)) {
            return "channels_first";
        }
        return "channels_last";
    }

    /**
     * Gives the layer its input shape, derives what follows from it (in channels, depthwise filters and
     * groups), and returns its output shape: the one the config states (Keras 1 {@code Deconvolution2D}
     * {@code output_shape}) or the computed one; null where the input is unknown.
     */
    static List<Integer> connect(ConvDraft d, List<Integer> input, boolean inputStated, JsonNode config) {
        int axis = d.channelAxis(input);
        if (axis < 0) {
            return null;
        }
        d.inputShape = input;
        if (!inputStated) {
            d.inferred("inputShape");
        }
        d.inChannels = input.get(axis);
        if (d.depthwise()) {
            d.groups = d.inChannels;
            d.filters = d.inChannels == null || d.depthMultiplier == null ? null : d.inChannels * d.depthMultiplier;
            d.inferred("filters").inferred("groups");
        }
        List<Integer> stated = KerasConfig.shape(KerasConfig.first(config, "output_shape"));
        if (stated != null && stated.size() == input.size()) {
            d.outputShape = stated;
            return stated;
        }
        List<Integer> in = d.spatial(input);
        if (d.kernel == null || d.strides == null || d.dilation == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>(d.rank);
        List<Integer> outputPadding = KerasConfig.ints(KerasConfig.first(config, "output_padding"), d.rank);
        for (int i = 0; i < d.rank; i++) {
            Integer len = d.transposed()
                    ? ConvArithmetic.transposed(in.get(i), d.kernel.get(i), d.strides.get(i), d.dilation.get(i), d.padding,
                            outputPadding == null ? null : outputPadding.get(i))
                    : ConvArithmetic.conv(in.get(i), d.kernel.get(i), d.strides.get(i), d.dilation.get(i), d.padding);
            out.add(len);
        }
        d.outputShape = d.shapeOf(input.get(0), d.filters, out);
        d.inferred("outputShape");
        return d.outputShape;
    }
}
