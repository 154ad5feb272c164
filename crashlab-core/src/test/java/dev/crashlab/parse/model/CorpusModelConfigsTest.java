package dev.crashlab.parse.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.fact.ConvSpec;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.TrainingSetup;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Checks every real model description in {@code ../shared/corpus/model-configs} against its
 * {@code <name>.expected.json}: sniffed and parsed as the service does, each convolution compared field by
 * field (kind, filters, in channels, kernel, strides, padding, dilation, groups, data format, dtype, input
 * and output shape, and the name where the truth gives a layer name), and the batch size.
 *
 * <p>The truth files describe some fields in words; they are normalised here, never our output:
 * <ul>
 *   <li>dtype {@code "float16 (CUDNN_DATA_HALF; autocast)"} is {@code float16}, {@code "float32 (Keras default)"}
 *       is {@code float32} (the word before the parenthesis);
 *   <li>data format {@code NCHW}/{@code NCDHW} is {@code channels_first}; {@code "NHWC (channels_last; ...)"} is
 *       {@code channels_last};
 *   <li>PyTorch padding lists ({@code [1, 1]}) are our {@code padding = explicit} with that
 *       {@code explicitPadding}; depthwise {@code out_channels} stands for {@code filters};
 *   <li>PyTorch shapes in the truth are in PyTorch's (N, C, H, W) dimension order whatever the memory format;
 *       {@code ConvSpec} gives shapes in the layer's data format, so a channels-last truth shape is permuted to
 *       (N, H, W, C) before comparing;
 *   <li>PyTorch layers have descriptive names in the truth ({@code "(unnamed; ResNet 3x3 block)"}): names are
 *       compared only where the truth gives an identifier, or one "from the traceback" (our name's source too).
 * </ul>
 *
 * <p>Known misses (file, reason): none.
 */
class CorpusModelConfigsTest {

    private static final Path CORPUS = Path.of("../shared/corpus/model-configs");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Files whose disagreements are known, each with its reason; must stay empty unless explained. */
    private static final Map<String, String> KNOWN_MISSES = Map.of();

    @Test
    void everyConvolutionAndBatchSizeAgreesWithTheTruth() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "no ../shared/corpus/model-configs here");
        List<Path> truths;
        try (Stream<Path> s = Files.list(CORPUS)) {
            truths = s.filter(p -> p.getFileName().toString().endsWith(".expected.json")).sorted().toList();
        }
        assertThat(truths).hasSize(26);
        List<String> failures = new ArrayList<>();
        StringBuilder table = new StringBuilder(String.format("%-66s %-20s %6s %6s %9s %6s%n",
                "file", "type", "convs", "found", "fields", "batch"));
        int totalFields = 0;
        int agreeing = 0;
        for (Path truthFile : truths) {
            String base = truthFile.getFileName().toString().replace(".expected.json", "");
            Path source = sourceOf(base);
            JsonNode truth = JSON.readTree(truthFile.toFile());
            ArtifactType type = new ArtifactSniffer().sniff(source.getFileName().toString(), source);
            ParseResult result = Parsers.parse(new ParseInput(source.getFileName().toString(), type, source));
            List<ConvSpec> convs = new ArrayList<>();
            Integer batch = null;
            for (Fact f : result.facts()) {
                if (f instanceof ConvSpec c) {
                    convs.add(c);
                } else if (f instanceof TrainingSetup t && batch == null) {
                    batch = t.batchSize();
                }
            }
            List<String> mismatches = new ArrayList<>();
            JsonNode expected = truth.path("conv_layers");
            int fields = 0;
            int ok = 0;
            if (expected.size() != convs.size()) {
                mismatches.add("expected " + expected.size() + " convolutions, found " + convs.size());
            }
            for (int i = 0; i < Math.min(expected.size(), convs.size()); i++) {
                for (String m : compare(expected.get(i), convs.get(i))) {
                    if (m == null) {
                        ok++;
                    } else {
                        mismatches.add("conv " + i + ": " + m);
                    }
                    fields++;
                }
            }
            Integer expectedBatch = truth.path("batch_size").isNull() ? null : truth.path("batch_size").asInt();
            boolean batchOk = Objects.equals(expectedBatch, batch);
            if (!batchOk) {
                mismatches.add("batch size: expected " + expectedBatch + ", found " + batch);
            }
            totalFields += fields;
            agreeing += ok;
            table.append(String.format("%-66s %-20s %6d %6d %4d/%-4d %6s%n", base, type, expected.size(), convs.size(),
                    ok, fields, batchOk ? "ok" : "MISS"));
            if (!mismatches.isEmpty() && !KNOWN_MISSES.containsKey(base)) {
                failures.add(base + " (" + type + "):\n    " + String.join("\n    ", mismatches.subList(0,
                        Math.min(12, mismatches.size()))));
            }
        }
        table.append(String.format("fields agreeing: %d of %d%n", agreeing, totalFields));
        System.out.println(table);
        assertThat(failures).as("disagreements with the truth files").isEmpty();
    }

    private static Path sourceOf(String base) throws IOException {
        try (Stream<Path> s = Files.list(CORPUS)) {
            return s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(base + ".") && !n.endsWith(".expected.json");
            }).findFirst().orElseThrow();
        }
    }

    /** One entry per compared field: null where it agrees, a message where it does not. */
    private static List<String> compare(JsonNode e, ConvSpec c) {
        List<String> out = new ArrayList<>();
        String name = e.path("name").asText();
        java.util.regex.Matcher traced = java.util.regex.Pattern.compile("(\\w+) \\(.*name from the traceback.*").matcher(name);
        if (name.matches("[A-Za-z0-9_./-]+")) {
            out.add(check("name", name, c.name()));
        } else if (traced.matches()) {
            out.add(check("name", traced.group(1), c.name()));
        }
        out.add(check("kind", e.path("kind").asText(), c.kind()));
        JsonNode filters = e.path("filters").isNull() || e.path("filters").isMissingNode() ? e.path("out_channels")
                : e.path("filters");
        out.add(check("filters", integer(filters), c.filters()));
        out.add(check("in_channels", integer(e.path("in_channels")), c.inChannels()));
        out.add(check("kernel", ints(e.path("kernel_size")), c.kernel()));
        out.add(check("strides", ints(e.path("strides")), c.strides()));
        JsonNode padding = e.path("padding");
        if (padding.isArray()) {
            out.add(check("padding", "explicit", c.padding()));
            out.add(check("explicitPadding", ints(padding), c.explicitPadding()));
        } else {
            out.add(check("padding", padding.asText(), c.padding()));
        }
        out.add(check("dilation", ints(e.path("dilation")), c.dilation()));
        out.add(check("groups", integer(e.path("groups")), c.groups()));
        String format = dataFormat(e.path("data_format").asText());
        out.add(check("data_format", format, c.dataFormat()));
        out.add(check("dtype", dtype(e.path("dtype")), c.dtype()));
        boolean torchChannelsLast = c.kind().startsWith("torch.") && "channels_last".equals(format);
        out.add(check("input_shape", shape(e.path("input_shape"), torchChannelsLast), c.inputShape()));
        if (e.has("output_shape")) {
            out.add(check("output_shape", shape(e.path("output_shape"), torchChannelsLast), c.outputShape()));
        }
        if (e.has("depth_multiplier")) {
            out.add(check("depth_multiplier", integer(e.path("depth_multiplier")), c.depthMultiplier()));
        }
        if (e.has("source_class_name")) {
            out.add(check("source_class_name", e.path("source_class_name").asText(), c.sourceClassName()));
        }
        return out;
    }

    private static String check(String field, Object expected, Object actual) {
        return Objects.equals(expected, actual) ? null : field + ": expected " + expected + ", found " + actual;
    }

    private static Integer integer(JsonNode n) {
        return n.isIntegralNumber() ? n.asInt() : null;
    }

    private static List<Integer> ints(JsonNode n) {
        if (!n.isArray()) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        n.forEach(v -> out.add(v.isNull() ? null : v.asInt()));
        return out;
    }

    /** A truth shape, permuted from PyTorch's (N, C, ...) order to (N, ..., C) for a channels-last layer. */
    private static List<Integer> shape(JsonNode n, boolean toChannelsLast) {
        List<Integer> s = ints(n);
        if (s == null || !toChannelsLast) {
            return s;
        }
        List<Integer> out = new ArrayList<>(s.size());
        out.add(s.get(0));
        out.addAll(s.subList(2, s.size()));
        out.add(s.get(1));
        return out;
    }

    private static String dataFormat(String truth) {
        if (truth.startsWith("NC")) {
            return "channels_first";
        }
        if (truth.startsWith("NHWC") || truth.startsWith("NDHWC") || truth.startsWith("NWC")) {
            return "channels_last";
        }
        return truth;
    }

    private static String dtype(JsonNode n) {
        if (n.isNull() || n.isMissingNode()) {
            return null;
        }
        String s = n.asText();
        int cut = s.indexOf(' ');
        return cut < 0 ? s : s.substring(0, cut);
    }
}
