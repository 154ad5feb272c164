package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.Padding;

import dev.crashlab.fact.ConvSpec;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.TrainingSetup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Builds a {@link ReproSpec} from a bundle's facts: its {@link ConvSpec} layers, the {@link TrainingSetup}
 * (batch, optimizer, dtype policy) and the reporter's {@link GpuDevice}.
 *
 * <p>NOTE: nothing here throws for incomplete facts. A layer that cannot be resolved (no input shape, no
 * kernel) is left out, and every default the spec had to assume (batch, optimizer, dtype, mode) is stated
 * in {@link ReproSpec#notes()}. Depthwise layers become grouped convolutions (groups = input channels);
 * separable layers become a depthwise layer followed by a 1x1 pointwise one; transposed kinds become
 * transposed layers. A spec with no layers means the facts held no replayable convolution.
 */
public final class ReproSpecs {

    /** The batch assumed when no fact states one (Keras' {@code fit} default). */
    public static final int DEFAULT_BATCH = 32;

    private ReproSpecs() {}

    /** Builds the spec the facts describe, noting what was assumed. */
    public static ReproSpec fromFacts(List<? extends Fact> facts) {
        List<String> notes = new ArrayList<>();
        List<ConvSpec> convs = new ArrayList<>();
        TrainingSetup setup = null;
        List<GpuDevice> gpus = new ArrayList<>();
        for (Fact f : facts) {
            if (f instanceof ConvSpec c) {
                convs.add(c);
            } else if (f instanceof TrainingSetup t && setup == null) {
                setup = t;
            } else if (f instanceof GpuDevice g && g.memoryTotalMiB() != null) {
                gpus.add(g);
            }
        }
        int batch = batch(setup, convs, notes);
        Precision precision = precision(setup, convs, notes);
        List<ReproLayer> layers = new ArrayList<>();
        Boolean channelsFirst = null;
        boolean mixedLayouts = false;
        Set<String> names = new HashSet<>();
        for (ConvSpec c : convs) {
            if (c.name() != null && !names.add(c.name())) {
                continue; // the same layer stated by two files (a model JSON and its summary)
            }
            boolean first = channelsFirst(c);
            int before = layers.size();
            resolve(c, first, layers, notes);
            if (layers.size() > before) {
                mixedLayouts |= channelsFirst != null && channelsFirst != first;
                channelsFirst = channelsFirst == null ? first : channelsFirst;
            }
        }
        if (convs.isEmpty()) {
            notes.add("no convolution layers in the facts: nothing to replay");
        }
        if (mixedLayouts) {
            notes.add("layers use both channels_first and channels_last; the first layer's layout is used for all");
        }
        ConvProblem.Layout layout = Boolean.TRUE.equals(channelsFirst) ? ConvProblem.Layout.NCHW : ConvProblem.Layout.NHWC;
        ReproSpec.Optimizer optimizer = optimizer(setup, notes);
        if (setup == null || setup.optimizer() == null) {
            notes.add("mode: a training step (forward, backward-data, backward-filter) assumed; set mode to"
                    + " inference for a crash in predict()");
        }
        return new ReproSpec(layers, batch, precision.dtype, precision.mixed, layout, ReproSpec.Mode.TRAINING, optimizer,
                gpu(gpus, notes), notes);
    }

    private static int batch(TrainingSetup setup, List<ConvSpec> convs, List<String> notes) {
        if (setup != null && setup.batchSize() != null && setup.batchSize() > 0) {
            return setup.batchSize();
        }
        for (ConvSpec c : convs) {
            if (c.batch() != null && c.batch() > 0) {
                return c.batch();
            }
        }
        notes.add("batch size not stated; " + DEFAULT_BATCH + " assumed (Keras' fit() default)");
        return DEFAULT_BATCH;
    }

    private record Precision(ConvProblem.DType dtype, boolean mixed) {}

    private static Precision precision(TrainingSetup setup, List<ConvSpec> convs, List<String> notes) {
        String stated = setup == null ? null : setup.dtypePolicy();
        for (ConvSpec c : convs) {
            if (stated == null) {
                stated = c.mixedPrecision() != null ? c.mixedPrecision() : c.dtype();
            }
        }
        if (stated == null) {
            notes.add("dtype not stated; float32 assumed");
            return new Precision(ConvProblem.DType.FLOAT32, false);
        }
        String s = stated.toLowerCase(Locale.ROOT);
        boolean mixed = s.startsWith("mixed_");
        String base = mixed ? s.substring("mixed_".length()) : s;
        return switch (base) {
            case "float16", "half", "fp16" -> new Precision(ConvProblem.DType.FLOAT16, mixed);
            case "bfloat16", "bf16" -> new Precision(ConvProblem.DType.BFLOAT16, mixed);
            case "float32", "float", "fp32" -> new Precision(ConvProblem.DType.FLOAT32, false);
            default -> {
                notes.add("dtype " + stated + " cannot be replayed; float32 used instead");
                yield new Precision(ConvProblem.DType.FLOAT32, false);
            }
        };
    }

    private static ReproSpec.Optimizer optimizer(TrainingSetup setup, List<String> notes) {
        String name = setup == null ? null : setup.optimizer();
        if (name == null) {
            notes.add("optimizer not stated; Adam assumed (2 slots per weight)");
            return ReproSpec.Optimizer.ADAM;
        }
        String s = name.toLowerCase(Locale.ROOT);
        s = s.substring(s.lastIndexOf('.') + 1);
        return switch (s) {
            case "sgd" -> {
                notes.add("optimizer SGD: momentum is not stated, so no slots counted (momentum would add 1 per weight)");
                yield ReproSpec.Optimizer.SGD;
            }
            case "adam", "adamw", "nadam", "adamax", "lamb" -> ReproSpec.Optimizer.ADAM;
            case "rmsprop" -> ReproSpec.Optimizer.RMSPROP;
            case "adagrad" -> ReproSpec.Optimizer.ADAGRAD;
            case "adadelta", "ftrl" -> ReproSpec.Optimizer.ADADELTA;
            default -> {
                notes.add("optimizer " + name + " not known; counted as Adam (2 slots per weight)");
                yield ReproSpec.Optimizer.ADAM;
            }
        };
    }

    private static ReproSpec.ReporterGpu gpu(List<GpuDevice> gpus, List<String> notes) {
        if (gpus.isEmpty()) {
            notes.add("no GPU memory stated (no nvidia-smi output): the estimate is not compared with a card");
            return null;
        }
        GpuDevice g = gpus.getFirst();
        long distinct = gpus.stream().map(d -> d.busId() != null ? d.busId() : String.valueOf(d.index())).distinct().count();
        if (distinct > 1) {
            notes.add(distinct + " GPUs reported; the estimate is compared with the first (" + g.name() + ")");
        }
        Long used = g.memoryUsedMiB();
        if (used != null && used > g.memoryTotalMiB()) {
            used = null;
        }
        return new ReproSpec.ReporterGpu(g.name(), g.memoryTotalMiB(), used);
    }

    // PyTorch is channels-first; Keras defaults to channels-last.
    private static boolean channelsFirst(ConvSpec c) {
        if (c.dataFormat() != null) {
            return c.dataFormat().equalsIgnoreCase("channels_first");
        }
        return c.kind().startsWith("torch.");
    }

    private static void resolve(ConvSpec c, boolean channelsFirst, List<ReproLayer> out, List<String> notes) {
        String kind = c.kind().toLowerCase(Locale.ROOT);
        kind = kind.substring(kind.lastIndexOf('.') + 1);
        String name = c.name() != null ? c.name() : c.kind() + "#" + out.size();
        String label = "layer " + name + " (" + c.kind() + ")";
        int rank = c.rank();
        List<Integer> shape = c.inputShape();
        if (shape == null || shape.size() != rank + 2) {
            notes.add(label + ": input shape not stated; not replayed");
            return;
        }
        int[] input = new int[rank];
        for (int d = 0; d < rank; d++) {
            Integer v = shape.get(channelsFirst ? d + 2 : d + 1);
            if (v == null || v < 1) {
                notes.add(label + ": spatial size " + (d + 1) + " of the input is open (None); not replayed");
                return;
            }
            input[d] = v;
        }
        Integer channelDim = shape.get(channelsFirst ? 1 : rank + 1);
        Integer in = c.inChannels() != null ? c.inChannels() : channelDim;
        if (in == null || in < 1) {
            notes.add(label + ": input channels not stated; not replayed");
            return;
        }
        int[] kernel = ints(c.kernel(), rank, null);
        if (kernel == null) {
            notes.add(label + ": kernel size not stated; not replayed");
            return;
        }
        int[] stride = ints(c.strides(), rank, 1);
        int[] dilation = ints(c.dilation(), rank, 1);
        if (stride == null || dilation == null) {
            notes.add(label + ": strides or dilation do not have " + rank + " entries; not replayed");
            return;
        }
        boolean transposed = kind.contains("transpose") || kind.startsWith("deconv");
        boolean depthwise = kind.startsWith("depthwiseconv");
        boolean separable = kind.startsWith("separableconv");
        int multiplier = c.depthMultiplier() != null && c.depthMultiplier() > 0 ? c.depthMultiplier() : 1;
        int groups;
        int filters;
        if (depthwise || separable) {
            groups = in;
            filters = in * multiplier;
        } else {
            if (c.filters() == null || c.filters() < 1) {
                notes.add(label + ": number of filters not stated; not replayed");
                return;
            }
            filters = c.filters();
            groups = c.groups() != null && c.groups() > 0 ? c.groups() : 1;
        }
        int[][] pad = padding(c, input, kernel, stride, dilation, transposed, label, notes);
        if (pad == null) {
            return;
        }
        List<ReproLayer> made = new ArrayList<>();
        made.add(new ReproLayer(separable ? name + "/depthwise" : name, in, filters, input, kernel, stride, pad[0], pad[1],
                dilation, groups, transposed));
        if (separable) {
            if (c.filters() == null || c.filters() < 1) {
                notes.add(label + ": number of filters not stated; the pointwise half is not replayed");
            } else {
                int[] mid = made.getFirst().problem(1, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW).outDims();
                int[] ones = new int[rank];
                java.util.Arrays.fill(ones, 1);
                made.add(new ReproLayer(name + "/pointwise", filters, c.filters(), mid, ones, ones, new int[rank],
                        new int[rank], ones, 1, false));
            }
        }
        for (ReproLayer l : made) {
            try {
                l.problem(1, ConvProblem.DType.FLOAT32, ConvProblem.Layout.NCHW);
                out.add(l);
            } catch (IllegalArgumentException e) {
                notes.add(label + ": " + e.getMessage() + "; not replayed");
                return;
            }
        }
    }

    private static int[][] padding(ConvSpec c, int[] input, int[] kernel, int[] stride, int[] dilation,
            boolean transposed, String label, List<String> notes) {
        int rank = input.length;
        String mode = c.padding() == null ? null : c.padding().toLowerCase(Locale.ROOT);
        if (mode == null) {
            notes.add(label + ": padding not stated; valid (none) assumed");
            mode = "valid";
        }
        if (mode.equals("explicit")) {
            List<Integer> e = c.explicitPadding();
            int[] begin = new int[rank];
            int[] end = new int[rank];
            if (e == null || (e.size() != rank && e.size() != 2 * rank) || e.contains(null)) {
                notes.add(label + ": explicit padding " + e + " does not give 1 or 2 amounts per dimension; not replayed");
                return null;
            }
            for (int d = 0; d < rank; d++) {
                begin[d] = e.size() == rank ? e.get(d) : e.get(2 * d);
                end[d] = e.size() == rank ? e.get(d) : e.get(2 * d + 1);
                if (begin[d] < 0 || end[d] < 0) {
                    notes.add(label + ": negative explicit padding " + e + "; not replayed");
                    return null;
                }
            }
            return new int[][] {begin, end};
        }
        Padding.Resolved r = Padding.resolve(mode, input, kernel, stride, dilation, transposed);
        if (r == null) {
            notes.add(label + ": padding " + c.padding() + " not known; not replayed");
            return null;
        }
        if (transposed && mode.equals("same")) {
            for (int d = 0; d < rank; d++) {
                if (dilation[d] * (kernel[d] - 1) + 1 < stride[d]) {
                    notes.add(label + ": 'same' with a kernel smaller than the stride: the replayed output is smaller"
                            + " than the framework's (output_padding is not modelled)");
                    break;
                }
            }
        }
        return new int[][] {r.begin(), r.end()};
    }

    private static int[] ints(List<Integer> v, int rank, Integer fill) {
        if (v == null) {
            if (fill == null) {
                return null;
            }
            int[] r = new int[rank];
            java.util.Arrays.fill(r, fill);
            return r;
        }
        if (v.size() == 1 && rank > 1 && v.getFirst() != null) {
            int[] r = new int[rank];
            java.util.Arrays.fill(r, v.getFirst());
            return r;
        }
        if (v.size() != rank || v.contains(null)) {
            return null;
        }
        int[] r = new int[rank];
        for (int d = 0; d < rank; d++) {
            if (v.get(d) < 1) {
                return null;
            }
            r[d] = v.get(d);
        }
        return r;
    }
}
