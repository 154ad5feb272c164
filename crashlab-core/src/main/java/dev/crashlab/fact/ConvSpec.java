package dev.crashlab.fact;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One convolution layer as a model description stated it (Keras model JSON, a {@code model.summary()}
 * table, PyTorch's cuDNN repro snippet or {@code ConvolutionParams} block, a code line): what the
 * reproduction replays and the memory estimator sizes.
 *
 * <p>NOTE: every field but {@code kind} and {@code rank} may be null: not stated and not derivable.
 * Spatial lists ({@code kernel}, {@code strides}, {@code dilation}) have {@code rank} entries.
 * Shapes include the batch dimension first, null where the source leaves it open ({@code None}).
 * Fields computed rather than read (e.g. a kernel derived from a summary's {@code Param #}) are named in
 * {@code inferred}, so a triager can tell what the source said from what we worked out.
 *
 * @param name the layer's name; nested containers as {@code outer/inner/name}
 * @param kind normalised class: {@code Conv1D}, {@code Conv2D}, {@code Conv3D}, {@code Conv1DTranspose},
 *     {@code Conv2DTranspose}, {@code Conv3DTranspose}, {@code DepthwiseConv1D}, {@code DepthwiseConv2D},
 *     {@code SeparableConv1D}, {@code SeparableConv2D}, or the PyTorch class ({@code torch.nn.Conv2d},
 *     {@code torch.nn.ConvTranspose2d}, ...)
 * @param sourceClassName the class name as written where it differs from {@code kind} (Keras 1
 *     {@code Convolution2D}, {@code Deconvolution2D}); null otherwise
 * @param rank spatial dimensions: 1, 2 or 3
 * @param inChannels input channels
 * @param filters output channels (Keras {@code filters}, PyTorch {@code out_channels}); for depthwise
 *     layers {@code inChannels * depthMultiplier}
 * @param kernel kernel size per spatial dimension
 * @param strides stride per spatial dimension
 * @param padding {@code valid}, {@code same}, {@code causal}, {@code full} or {@code explicit}
 * @param explicitPadding per-dimension padding where {@code padding} is {@code explicit} (PyTorch
 *     {@code padding=(1, 1)}); one entry per dimension, or two per dimension (begin, end) when asymmetric
 * @param dilation dilation per spatial dimension
 * @param groups convolution groups (depthwise: groups = in channels)
 * @param depthMultiplier depthwise/separable multiplier; null for other kinds
 * @param dataFormat {@code channels_last} (NHWC) or {@code channels_first} (NCHW)
 * @param dtype compute dtype: {@code float32}, {@code float16}, {@code bfloat16}, {@code float64}
 * @param mixedPrecision the dtype policy name when it is a mixed one ({@code mixed_float16}); null otherwise
 * @param inputShape the layer's input shape, batch first, in the layer's data format
 * @param outputShape the layer's output shape, batch first, where stated or computed
 * @param inferred names of fields derived rather than read (e.g. {@code kernel}, {@code inChannels})
 */
public record ConvSpec(String name, String kind, String sourceClassName, int rank, Integer inChannels, Integer filters,
        List<Integer> kernel, List<Integer> strides, String padding, List<Integer> explicitPadding,
        List<Integer> dilation, Integer groups, Integer depthMultiplier, String dataFormat, String dtype,
        String mixedPrecision, List<Integer> inputShape, List<Integer> outputShape, List<String> inferred,
        List<SourceRef> sources) implements ModelFact {

    public ConvSpec {
        if (rank < 1 || rank > 3) {
            throw new IllegalArgumentException("rank must be 1, 2 or 3: " + rank);
        }
        kernel = copyNullable(kernel);
        strides = copyNullable(strides);
        explicitPadding = copyNullable(explicitPadding);
        dilation = copyNullable(dilation);
        inputShape = copyNullable(inputShape);
        outputShape = copyNullable(outputShape);
        inferred = inferred == null ? List.of() : List.copyOf(inferred);
        sources = List.copyOf(sources);
    }

    /** Copies a list that may hold nulls (shapes with an open batch), keeping null for "not stated". */
    private static List<Integer> copyNullable(List<Integer> list) {
        return list == null ? null : Collections.unmodifiableList(new ArrayList<>(list));
    }

    /** The batch size the input shape states, or null where it is open or not stated. */
    public Integer batch() {
        return inputShape == null || inputShape.isEmpty() ? null : inputShape.get(0);
    }

    @Override
    public ConvSpec withSources(List<SourceRef> s) {
        return new ConvSpec(name, kind, sourceClassName, rank, inChannels, filters, kernel, strides, padding,
                explicitPadding, dilation, groups, depthMultiplier, dataFormat, dtype, mixedPrecision, inputShape,
                outputShape, inferred, s);
    }
}
