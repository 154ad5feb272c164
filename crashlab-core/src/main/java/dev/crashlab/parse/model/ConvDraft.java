package dev.crashlab.parse.model;

import dev.crashlab.fact.ConvSpec;
import dev.crashlab.fact.SourceRef;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects one convolution's fields as a parser finds them, then becomes a {@link ConvSpec}; the model
 * parsers fill it from different sources (JSON configs, summary rows, code lines, cuDNN descriptors).
 */
final class ConvDraft {

    String name;
    String kind;
    String sourceClassName;
    int rank;
    Integer inChannels;
    Integer filters;
    List<Integer> kernel;
    List<Integer> strides;
    String padding;
    List<Integer> explicitPadding;
    List<Integer> dilation;
    Integer groups;
    Integer depthMultiplier;
    String dataFormat;
    String dtype;
    String mixedPrecision;
    List<Integer> inputShape;
    List<Integer> outputShape;
    final Set<String> inferred = new LinkedHashSet<>();
    final List<SourceRef> sources = new ArrayList<>();

    ConvDraft(String kind, int rank) {
        this.kind = kind;
        this.rank = rank;
    }

    /** Whether this is a transposed ("deconvolution") layer. */
    boolean transposed() {
        return kind.contains("Transpose");
    }

    /** Whether this is a depthwise layer (one filter group per input channel). */
    boolean depthwise() {
        return kind.startsWith("Depthwise");
    }

    /** Notes that {@code field} was derived, not read. */
    ConvDraft inferred(String field) {
        inferred.add(field);
        return this;
    }

    /** The channel axis of a shape in this layer's data format, or -1 where the shape does not fit. */
    int channelAxis(List<Integer> shape) {
        if (shape == null || shape.size() != rank + 2) {
            return -1;
        }
        return "channels_first".equals(dataFormat) ? 1 : rank + 1;
    }

    /** The spatial sizes of {@code shape} in this layer's data format, or null where the shape does not fit. */
    List<Integer> spatial(List<Integer> shape) {
        if (shape == null || shape.size() != rank + 2) {
            return null;
        }
        int from = "channels_first".equals(dataFormat) ? 2 : 1;
        return new ArrayList<>(shape.subList(from, from + rank));
    }

    /** A shape in this layer's data format from batch, channels and spatial sizes. */
    List<Integer> shapeOf(Integer batch, Integer channels, List<Integer> spatial) {
        List<Integer> s = new ArrayList<>(rank + 2);
        s.add(batch);
        if ("channels_first".equals(dataFormat)) {
            s.add(channels);
            s.addAll(spatial);
        } else {
            s.addAll(spatial);
            s.add(channels);
        }
        return s;
    }

    /** Returns the fact. */
    ConvSpec toSpec() {
        return new ConvSpec(name, kind, sourceClassName, rank, inChannels, filters, kernel, strides, padding,
                explicitPadding, dilation, groups, depthMultiplier, dataFormat, dtype, mixedPrecision, inputShape,
                outputShape, List.copyOf(inferred), List.copyOf(sources));
    }
}
