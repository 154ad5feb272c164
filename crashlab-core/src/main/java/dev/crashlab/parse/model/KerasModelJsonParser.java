package dev.crashlab.parse.model;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.TrainingSetup;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a Keras model description in JSON ({@code model.to_json()} of Keras 1, 2 and 3, the
 * {@code config.json} inside a {@code .keras} archive, TensorFlow.js {@code model.json} with its
 * {@code modelTopology}) into one {@code ConvSpec} per convolution, with shapes carried through the graph,
 * and a {@code TrainingSetup} where the file fixes a batch size, an optimizer or a mixed dtype policy.
 *
 * <p>NOTE: each fact cites the line where its layer's JSON object starts and that object's text as written
 * (cut at {@link SourceRef#MAX_TEXT}); a one-line file gives line 1 for every layer.
 */
public final class KerasModelJsonParser implements ArtifactParser {

    /** The most characters read; a model description is kilobytes to a few megabytes. */
    static final int MAX_CHARS = 32 * 1024 * 1024;

    @Override
    public String name() {
        return "keras-model-json";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.KERAS_MODEL_JSON);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        String text = read(input, out);
        if (text == null) {
            return out.build();
        }
        LocatedJson json;
        try {
            json = LocatedJson.parse(text);
        } catch (LocatedJson.TooLarge e) {
            out.problem(new ParseProblem.MalformedInput(input.at(1, ""), "model JSON too large: " + e.getMessage()));
            return out.build();
        } catch (JacksonException e) {
            long line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
            out.problem(new ParseProblem.MalformedInput(input.at(line, ""), "not valid JSON: " + e.getOriginalMessage()));
            return out.build();
        }
        JsonNode model = modelOf(json.root());
        if (model == null) {
            out.problem(new ParseProblem.MalformedInput(input.at(1, ""),
                    "no Keras model (class_name and config with layers) in this JSON"));
            return out.build();
        }
        List<Integer> firstInput = new ArrayList<>();
        List<ConvDraft> convs = new ArrayList<>();
        new KerasModelGraph((conv, layer) -> {
            SourceRef at = sourceOf(input, json, layer);
            conv.sources.add(at);
            convs.add(conv);
        }).walk(model, "", List.of(), 0);
        for (ConvDraft c : convs) {
            out.fact(c.toSpec());
        }
        trainingSetup(input, json, model, convs, out);
        return out.build();
    }

    /** Reads the whole artifact as text, refusing more than {@link #MAX_CHARS} characters. */
    private static String read(ParseInput input, ParseResult.Builder out) throws IOException {
        StringBuilder sb = new StringBuilder();
        char[] buf = new char[1 << 16];
        long replaced = 0;
        try (BufferedReader r = input.openText()) {
            for (int n = r.read(buf); n > 0; n = r.read(buf)) {
                if (sb.length() + n > MAX_CHARS) {
                    out.problem(new ParseProblem.MalformedInput(input.at(1, ""),
                            "model JSON longer than " + MAX_CHARS + " characters; not read"));
                    return null;
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\uFFFD') {
                        replaced++;
                    }
                }
                sb.append(buf, 0, n);
            }
        }
        if (replaced > 0) {
            out.problem(new ParseProblem.UnreadableText(input.path(), replaced + " undecodable bytes were replaced by U+FFFD"));
        }
        return sb.toString();
    }

    /** The model object: the root, TF.js {@code modelTopology} (with or without {@code model_config}), or {@code model_config}. */
    static JsonNode modelOf(JsonNode root) {
        if (root == null || !root.isObject()) {
            return null;
        }
        JsonNode[] candidates = {root, root.path("modelTopology"), root.path("modelTopology").path("model_config"),
                root.path("model_config"), root.path("config").path("model_config")};
        for (JsonNode c : candidates) {
            if (KerasModelGraph.isModel(c)) {
                return c;
            }
        }
        return null;
    }

    private static SourceRef sourceOf(ParseInput input, LocatedJson json, JsonNode layer) {
        LocatedJson.Span span = json.span(layer);
        return input.at(span == null ? 1 : span.line(), json.textOf(layer, SourceRef.MAX_TEXT));
    }

    /**
     * The batch size the model fixes (a non-null batch dimension on the convolutions' inputs), the optimizer
     * of Keras 3 {@code compile_config} or Keras 2 {@code training_config}, and a mixed dtype policy.
     */
    private static void trainingSetup(ParseInput input, LocatedJson json, JsonNode model, List<ConvDraft> convs,
            ParseResult.Builder out) {
        Integer batch = null;
        SourceRef batchAt = null;
        String mixed = null;
        SourceRef mixedAt = null;
        for (ConvDraft c : convs) {
            if (batch == null && c.inputShape != null && !c.inputShape.isEmpty() && c.inputShape.get(0) != null) {
                batch = c.inputShape.get(0);
                batchAt = c.sources.get(0);
            }
            if (mixed == null && c.mixedPrecision != null) {
                mixed = c.mixedPrecision;
                mixedAt = c.sources.get(0);
            }
        }
        JsonNode root = json.root();
        JsonNode opt = KerasConfig.first(root.path("compile_config"), "optimizer");
        if (opt == null) {
            opt = KerasConfig.first(root.path("training_config").path("optimizer_config"), "class_name");
        }
        String optimizer = OptimizerNames.normalise(opt == null ? null : opt.isTextual() ? opt.asText()
                : KerasConfig.text(opt, "class_name"));
        if (batch == null && optimizer == null && mixed == null) {
            return;
        }
        List<SourceRef> at = new ArrayList<>();
        if (batchAt != null) {
            at.add(batchAt);
        }
        if (mixedAt != null && !at.contains(mixedAt)) {
            at.add(mixedAt);
        }
        if (at.isEmpty()) {
            LocatedJson.Span span = json.span(model);
            at.add(input.at(span == null ? 1 : span.line(), ""));
        }
        out.fact(new TrainingSetup(batch, optimizer, mixed, at));
    }
}
