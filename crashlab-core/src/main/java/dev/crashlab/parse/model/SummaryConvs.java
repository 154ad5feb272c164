package dev.crashlab.parse.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns the rows of one {@code model.summary()} table into convolution drafts (each row's input is the
 * output of the layer its {@code Connected to} column names, else of the row above), and merges a draft
 * with the code line that built the same layer.
 */
final class SummaryConvs {

    private SummaryConvs() {}

    /** The convolutions of one table, in row order. */
    static List<ConvDraft> of(List<SummaryRow> rows) {
        List<ConvDraft> out = new ArrayList<>();
        Map<String, List<Integer>> outputs = new HashMap<>();
        List<Integer> previous = null;
        boolean first = true;
        String format = null;
        for (SummaryRow row : rows) {
            List<Integer> input = previous;
            if (!row.connectedTo().isEmpty()) {
                input = outputs.get(row.connectedTo().get(0));
            }
            if (first) {
                input = null;
            }
            KerasConvLayer.Kind kind = KerasConvLayer.kindOfPrefix(row.type());
            if (kind != null) {
                ConvDraft d = new ConvDraft(kind.kind(), kind.rank());
                d.name = row.name();
                d.sourceClassName = row.type().equals(kind.kind()) ? null : row.type();
                if (d.sourceClassName != null && kind.kind().startsWith(d.sourceClassName)) {
                    // a class name the column cut short is not a different spelling
                    d.sourceClassName = null;
                }
                d.outputShape = row.outputShape() != null && row.outputShape().size() == kind.rank() + 2
                        ? row.outputShape() : null;
                SummaryConvDerivation.derive(d, row.params(), input, format);
                if (d.kernel != null) {
                    format = d.dataFormat;
                }
                d.sources.add(row.source());
                out.add(d);
            }
            previous = row.outputShape();
            outputs.put(row.name(), row.outputShape());
            first = false;
        }
        return out;
    }

    /** Whether a summary row's draft and a code line's draft can be the same layer. */
    static boolean sameLayer(ConvDraft row, ConvDraft code) {
        return row.kind.equals(code.kind) && (row.filters == null || code.filters == null
                || Objects.equals(row.filters, code.filters));
    }

    /**
     * Takes the settings the code states into the row's draft (they are read, not derived), and the code's
     * input shape where the row had to assume one.
     */
    static void merge(ConvDraft row, ConvDraft code) {
        if (code.kernel != null) {
            row.kernel = code.kernel;
            row.inferred.remove("kernel");
        }
        if (code.strides != null) {
            row.strides = code.strides;
            row.inferred.remove("strides");
        }
        if (code.padding != null) {
            row.padding = code.padding;
            row.inferred.remove("padding");
        }
        if (code.dilation != null) {
            row.dilation = code.dilation;
            row.inferred.remove("dilation");
        }
        if (code.groups != null && !code.depthwise()) {
            row.groups = code.groups;
            row.inferred.remove("groups");
        }
        if (code.depthMultiplier != null) {
            row.depthMultiplier = code.depthMultiplier;
            row.inferred.remove("depthMultiplier");
        }
        row.dataFormat = code.dataFormat;
        row.inferred.remove("dataFormat");
        row.dtype = code.dtype;
        row.mixedPrecision = code.mixedPrecision;
        if (code.inferred.contains("dtype")) {
            row.inferred("dtype");
        }
        if (code.name != null && row.name == null) {
            row.name = code.name;
        }
        if (code.inputShape != null && (row.inputShape == null || row.inferred.contains("inputShape"))) {
            row.inputShape = code.inputShape;
            row.inChannels = code.inChannels;
            row.inferred.remove("inputShape");
            row.inferred.remove("inChannels");
        } else if (row.inferred.contains("inputShape")) {
            row.inputShape = inputFromOutput(row);
        }
        row.sources.addAll(code.sources);
    }

    /** The input a stride-1 layer must have had for its output; null where that is not determined. */
    private static List<Integer> inputFromOutput(ConvDraft d) {
        if (d.outputShape == null || d.kernel == null || d.strides == null || d.dilation == null
                || d.transposed()) {
            return null;
        }
        List<Integer> out = d.spatial(d.outputShape);
        List<Integer> in = new ArrayList<>(d.rank);
        for (int i = 0; i < d.rank; i++) {
            if (d.strides.get(i) != 1 || out.get(i) == null) {
                return null;
            }
            long extra = switch (d.padding == null ? "" : d.padding) {
                case "valid" -> ConvArithmetic.span(d.kernel.get(i), d.dilation.get(i)) - 1;
                case "same", "causal" -> 0;
                default -> -1;
            };
            if (extra < 0) {
                return null;
            }
            in.add((int) (out.get(i) + extra));
        }
        return d.shapeOf(d.outputShape.get(0), d.inChannels, in);
    }
}
