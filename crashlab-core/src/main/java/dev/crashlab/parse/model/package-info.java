/**
 * Parsers of model descriptions: Keras model JSON (Keras 1, 2 and 3, {@code .keras} {@code config.json},
 * TensorFlow.js {@code model.json}), {@code model.summary()} tables and model-building code lines, and
 * PyTorch's cuDNN failure output (repro snippet and {@code ConvolutionParams} block). They produce one
 * {@code ConvSpec} per convolution and a {@code TrainingSetup} where a file fixes the batch size, the
 * optimizer or a mixed dtype policy.
 *
 * <p>Conventions the memory estimator and the reproduction rely on:
 * <ul>
 *   <li>shapes are batch first and in the layer's data format: Keras {@code channels_last} is
 *       (N, spatial..., C); PyTorch dims are re-ordered to (N, H, W, C) where the descriptors show a
 *       channels-last run, else kept as (N, C, H, W);
 *   <li>{@code filters} is the output channel count for every kind (depthwise: in channels times the
 *       multiplier, with {@code groups} = in channels); {@code kind} is Keras' class name
 *       ({@code Conv2D}, {@code Conv2DTranspose}, {@code SeparableConv2D}, {@code DepthwiseConv2D}, with the
 *       Keras 1 name in {@code sourceClassName}) or PyTorch's ({@code torch.nn.Conv2d});
 *   <li>PyTorch padding is {@code explicit} with {@code explicitPadding} per spatial dimension; Keras keeps
 *       its mode ({@code valid}, {@code same}, {@code causal}, {@code full});
 *   <li>a setting a Keras config or call leaves out takes the class default (strides 1, padding valid,
 *       dilation 1, groups 1) and counts as read; values worked out instead (shapes carried through a graph,
 *       a kernel from a summary's {@code Param #}, Keras 1's floatx dtype, the float32 default of code lines)
 *       are named in {@code inferred};
 *   <li>dtype is null where nothing states it (a summary table, a TF.js layer without {@code dtype}); a
 *       mixed policy gives the compute dtype ({@code float16}) and {@code mixedPrecision = mixed_float16};
 *   <li>a layer whose input is unknown (after a layer we do not model, such as a {@code Lambda}) keeps its
 *       own settings with null shapes; nothing is guessed.
 * </ul>
 */
package dev.crashlab.parse.model;
