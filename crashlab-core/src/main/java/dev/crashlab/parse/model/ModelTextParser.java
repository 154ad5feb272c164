package dev.crashlab.parse.model;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.TrainingSetup;
import dev.crashlab.parse.LineFedParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads models described in text: {@code model.summary()} tables (Keras 2 and 3 styles, wrapped, collapsed,
 * inside comments) and model-building code lines ({@code Conv2D(...)}, {@code nn.Conv2d(...)},
 * {@code fit(..., batch_size=N)}), into {@code ConvSpec} and {@code TrainingSetup} facts.
 *
 * <p>NOTE: a summary and the code that built it describe the same layers, so they are read together: the
 * n-th convolution row of the summary and the n-th convolution call of the code are one layer where their
 * kinds and filter counts agree; the code's settings (kernel, strides, padding) then replace the ones the
 * row's numbers imply, and the row gives the name and shapes. Lines of a PyTorch repro snippet are left to
 * {@link PytorchCudnnReproParser}.
 */
public final class ModelTextParser implements LineFedParser {

    @Override
    public String name() {
        return "model-text";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.KERAS_MODEL_SUMMARY, ArtifactType.CONSOLE_LOG, ArtifactType.TEXT);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        return ArtifactLines.read(input, this);
    }

    @Override
    public List<String> lineLiterals() {
        // a summary's header, and what ModelCodeScanner.worthReading looks for
        return List.of("Layer (type)", "onv", "batch_size", "fit", "ompile", "ptim", "olicy", "DataLoader");
    }

    @Override
    public List<String> checkLiterals() {
        // a short NAME = 64 line: an = followed by what CONSTANT allows after it (\s, then a digit)
        return List.of("=0", "=1", "=2", "=3", "=4", "=5", "=6", "=7", "=8", "=9", "= ", "=\t", "=\u000B", "=\f");
    }

    @Override
    public int maxLine() {
        return ArtifactLines.CODE_LINES;
    }

    @Override
    public Reading startReading(ParseInput input) {
        KerasSummaryTable table = new KerasSummaryTable(input);
        ModelCodeScanner code = new ModelCodeScanner(input, true);
        return new Reading() {
            @Override
            public boolean wantsEveryLine() {
                return table.inTable() || code.inStatement();
            }

            @Override
            public boolean wants(byte[] b, int from, int to) {
                return ModelCodeScanner.mayBeConstant(b, from, to);
            }

            @Override
            public void line(long number, String text) {
                table.line(number, text);
                code.line(number, text);
            }

            @Override
            public void finish(ParseResult.Builder out) {
                ModelTextParser.finish(code, table, out);
            }
        };
    }

    private static void finish(ModelCodeScanner code, KerasSummaryTable table, ParseResult.Builder out) {
        ModelCodeScanner.Found found = code.finish();
        List<ConvDraft> fromSummary = new ArrayList<>();
        for (List<SummaryRow> rows : table.finish()) {
            fromSummary.addAll(SummaryConvs.of(rows));
        }
        List<ConvDraft> fromCode = found.convs;
        if (found.mixedPolicy != null) {
            for (ConvDraft c : fromCode) {
                // the policy applies to layers built after it is set
                if (c.inferred.contains("dtype") && !c.kind.startsWith("torch.")
                        && c.sources.get(0).line() > found.policyAt.line()) {
                    c.dtype = DtypeNames.normalise(found.mixedPolicy);
                    c.mixedPrecision = found.mixedPolicy;
                    c.sources.add(found.policyAt);
                }
            }
        }
        int paired = 0;
        List<ConvDraft> kerasCode = fromCode.stream().filter(c -> !c.kind.startsWith("torch.")).toList();
        while (paired < fromSummary.size() && paired < kerasCode.size()
                && SummaryConvs.sameLayer(fromSummary.get(paired), kerasCode.get(paired))) {
            SummaryConvs.merge(fromSummary.get(paired), kerasCode.get(paired));
            paired++;
        }
        for (ConvDraft d : fromSummary) {
            out.fact(d.toSpec());
        }
        for (ConvDraft c : fromCode) {
            if (!kerasCode.subList(0, paired).contains(c)) {
                out.fact(c.toSpec());
            }
        }
        if (found.batchSize != null || found.optimizer != null || found.mixedPolicy != null) {
            List<SourceRef> at = new ArrayList<>();
            for (SourceRef r : new SourceRef[] {found.batchAt, found.optimizerAt, found.policyAt}) {
                if (r != null && !at.contains(r)) {
                    at.add(r);
                }
            }
            out.fact(new TrainingSetup(found.batchSize, found.optimizer, found.mixedPolicy, at));
        }
    }
}
