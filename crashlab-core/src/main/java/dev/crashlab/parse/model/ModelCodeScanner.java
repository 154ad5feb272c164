package dev.crashlab.parse.model;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ParseInput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads model-building code line by line (Python source, or code echoed in a log): Keras
 * {@code Conv2D(32, (3, 3), padding='same', input_shape=(28, 28, 1))}, Keras 1 {@code Convolution2D(32, 3, 3)},
 * PyTorch {@code nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3)}, {@code fit(..., batch_size=N)},
 * {@code compile(optimizer=...)} and a global mixed-precision policy.
 *
 * <p>NOTE: a statement may span lines (open brackets continue it, up to {@link #MAX_STATEMENT_LINES});
 * comment lines are skipped; only literal arguments are read, and an argument given as a variable is unknown
 * (null) rather than the class default. A name bound once to an int literal ({@code BATCH_SIZE = 64}) is
 * resolved where a batch size names it.
 */
final class ModelCodeScanner {

    static final int MAX_STATEMENT_LINES = 20;
    /** Longer logical lines are not code we can read. */
    static final int MAX_STATEMENT_CHARS = 8000;

    private static final Pattern CONV_CALL = Pattern.compile(
            "(?<![\\w/])(?:[A-Za-z_]\\w{0,40}\\.){0,4}(Conv[123]D(?:Transpose)?|Convolution[123]D|Deconvolution[23]D"
                    + "|AtrousConvolution[12]D|SeparableConv[12]D|SeparableConvolution[12]D|DepthwiseConv[12]D"
                    + "|Conv[123]d|ConvTranspose[123]d)\\(");
    private static final Pattern BATCH = Pattern.compile("\\bbatch_size\\s{0,4}=\\s{0,4}([A-Za-z_]\\w{0,60}|\\d{1,9})\\b");
    private static final Pattern FIT = Pattern.compile("\\.(?:fit|fit_generator|evaluate|predict)\\s{0,4}\\(|\\bDataLoader\\s{0,4}\\(");
    private static final Pattern CONSTANT = Pattern.compile("^([A-Za-z_]\\w{0,60})\\s{0,4}=\\s{0,4}(\\d{1,9})\\s*(?:#.*)?$");
    private static final Pattern OPTIMIZER = Pattern.compile(
            "\\boptimizer\\s{0,4}=\\s{0,4}(?:['\"](\\w{1,40})['\"]|(?:[A-Za-z_]\\w{0,40}\\.){0,4}([A-Za-z_]\\w{0,40})\\s{0,4}\\()");
    private static final Pattern TORCH_OPTIMIZER = Pattern.compile("\\boptim\\.([A-Z]\\w{1,40})\\s{0,4}\\(");
    private static final Pattern POLICY = Pattern.compile(
            "(?:set_global_policy|set_policy|set_dtype_policy|Policy|DTypePolicy)\\s{0,4}\\(\\s{0,4}['\"](mixed_(?:b?float16))['\"]");

    private static final Pattern LOG_LINE = Pattern.compile(
            "File \"|Traceback |\\w{1,60}(?:Error|Exception|Warning): |[WEFI]\\d{4} |\\d{4}-\\d\\d-\\d\\d");

    /** What the code states about the model and its training, in file order. */
    static final class Found {
        final List<ConvDraft> convs = new ArrayList<>();
        Integer batchSize;
        SourceRef batchAt;
        String optimizer;
        SourceRef optimizerAt;
        String mixedPolicy;
        SourceRef policyAt;

        boolean isEmpty() {
            return convs.isEmpty() && batchSize == null && optimizer == null && mixedPolicy == null;
        }
    }

    private final ParseInput input;
    private final boolean skipTorchReproSnippet;
    private final Found found = new Found();
    private final Map<String, Integer> constants = new HashMap<>();
    private final StringBuilder statement = new StringBuilder();
    private long statementLine;
    private int statementLines;
    private int depth;

    /**
     * Scans lines of {@code input}; {@code skipTorchReproSnippet} leaves PyTorch's generated repro snippet
     * ({@code net = torch.nn.Conv2d(...)}) to the parser that reads it together with its input tensor.
     */
    ModelCodeScanner(ParseInput input, boolean skipTorchReproSnippet) {
        this.input = input;
        this.skipTorchReproSnippet = skipTorchReproSnippet;
    }

    /** Takes the next physical line. */
    void line(long number, String text) {
        String t = text.strip();
        if (skipTorchReproSnippet && t.startsWith("net = torch.nn.Conv")) {
            // PyTorch's repro snippet: the repro parser reads it with its input tensor
            endStatement();
            return;
        }
        if (!statement.isEmpty() && LOG_LINE.matcher(t).lookingAt()) {
            // a traceback frame or an exception line: a log, not the rest of an open call
            endStatement();
        }
        if (statement.isEmpty()) {
            if (t.isEmpty() || t.startsWith("#") || !worthReading(t)) {
                return;
            }
            statementLine = number;
            statementLines = 0;
            depth = 0;
        }
        if (statement.length() + t.length() > MAX_STATEMENT_CHARS) {
            statement.setLength(0);
            depth = 0;
            return;
        }
        if (!statement.isEmpty()) {
            statement.append(' ');
        }
        statement.append(t);
        statementLines++;
        depth += bracketBalance(t);
        if (depth <= 0 || statementLines >= MAX_STATEMENT_LINES) {
            String s = statement.toString();
            statement.setLength(0);
            depth = 0;
            statement(statementLine, s);
        }
    }

    /** Tells whether a statement is open: then every line matters. */
    boolean inStatement() {
        return !statement.isEmpty();
    }

    /**
     * Tells whether raw line bytes {@code b[from, to)} can be a short {@code NAME = 64} line ({@link #worthReading}'s
     * last check): stripped, under 80 characters with an {@code =} past the start; true for non-ASCII bytes.
     */
    static boolean mayBeConstant(byte[] b, int from, int to) {
        int s = from;
        int e = to;
        while (s < e && asciiSpace(b[s])) {
            s++;
        }
        while (e > s && asciiSpace(b[e - 1])) {
            e--;
        }
        if (e - s >= 80) {
            return dev.crashlab.parse.TextDecoding.anyHigh(b, s, e); // characters are fewer than bytes
        }
        for (int i = s + 1; i < e; i++) {
            if (b[i] == '=') {
                return true;
            }
        }
        for (int i = s; i < e; i++) {
            if (b[i] < 0) {
                return true;
            }
        }
        return false;
    }


    // what String.strip removes among ASCII characters (Character.isWhitespace)
    private static boolean asciiSpace(byte c) {
        return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
    }

    /** Finishes a statement left open at the end of the input, and returns what was found. */
    Found finish() {
        endStatement();
        return found;
    }

    private void endStatement() {
        if (!statement.isEmpty()) {
            String s = statement.toString();
            statement.setLength(0);
            depth = 0;
            statement(statementLine, s);
        }
    }

    /**
     * Whether a line can start a statement of interest: cheap substring checks first, so a gigabyte log
     * costs a few {@code contains} per line and no regex work.
     */
    private static boolean worthReading(String t) {
        return t.contains("onv") || t.contains("batch_size") || t.contains("fit") || t.contains("ompile")
                || t.contains("ptim") || t.contains("olicy") || t.contains("DataLoader")
                || t.length() < 80 && t.indexOf('=') > 0 && CONSTANT.matcher(t).matches();
    }

    private static int bracketBalance(String t) {
        int d = 0;
        char quote = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#') {
                break;
            } else if (c == '(' || c == '[' || c == '{') {
                d++;
            } else if (c == ')' || c == ']' || c == '}') {
                d--;
            }
        }
        return d;
    }

    private void statement(long line, String s) {
        Matcher c = CONSTANT.matcher(s);
        if (c.matches()) {
            constants.put(c.group(1), Integer.parseInt(c.group(2)));
            return;
        }
        SourceRef at = input.at(line, s);
        boolean reproSnippet = skipTorchReproSnippet && s.startsWith("net = torch.nn.Conv");
        Matcher m = CONV_CALL.matcher(s);
        while (!reproSnippet && m.find()) {
            PythonCall call = PythonCall.at(s, m.end() - 1);
            if (call == null) {
                break;
            }
            ConvDraft d = Character.isLowerCase(m.group(1).charAt(m.group(1).length() - 1))
                    ? torch(m.group(1), call) : keras(m.group(1), call);
            // a call with no literal size is not a layer we can describe (nor, in TF logs, a call at all:
            // "[[node model/conv2d/Conv2D (defined at train.py:42) ]]")
            if (d != null && (d.filters != null || d.kernel != null || d.inChannels != null)) {
                d.sources.add(at);
                found.convs.add(d);
            }
        }
        if (found.batchSize == null && FIT.matcher(s).find()) {
            Matcher b = BATCH.matcher(s);
            if (b.find()) {
                Integer v = PythonCall.intOf(b.group(1));
                found.batchSize = v != null ? v : constants.get(b.group(1));
                found.batchAt = found.batchSize == null ? null : at;
            }
        }
        if (found.optimizer == null && (s.contains("compile(") || s.contains("compile ("))) {
            Matcher o = OPTIMIZER.matcher(s);
            if (o.find()) {
                String name = o.group(1) != null ? o.group(1) : o.group(2);
                found.optimizer = OptimizerNames.normalise(name);
                found.optimizerAt = at;
            }
        }
        if (found.optimizer == null) {
            Matcher o = TORCH_OPTIMIZER.matcher(s);
            if (o.find()) {
                found.optimizer = o.group(1);
                found.optimizerAt = at;
            }
        }
        Matcher p = POLICY.matcher(s);
        if (found.mixedPolicy == null && p.find()) {
            found.mixedPolicy = p.group(1);
            found.policyAt = at;
        }
    }

    /** A Keras layer call; positional order as in Keras 2/3 ({@code filters, kernel_size, strides}) or Keras 1. */
    private ConvDraft keras(String className, PythonCall call) {
        KerasConvLayer.Kind kind = KerasConvLayer.kindOf(className);
        if (kind == null) {
            return null;
        }
        int rank = kind.rank();
        ConvDraft d = new ConvDraft(kind.kind(), rank);
        d.sourceClassName = className.equals(kind.kind()) ? null : className;
        d.name = PythonCall.stringOf(call.keywords.get("name"));
        boolean legacy = className.startsWith("Convolution") || className.startsWith("Deconvolution")
                || className.startsWith("Atrous") || className.startsWith("SeparableConvolution")
                || call.keywords.containsKey("nb_filter");
        boolean depthwise = d.depthwise();
        if (depthwise) {
            d.kernel = PythonCall.intsOf(call.arg("kernel_size", 0), rank);
        } else if (legacy) {
            d.filters = PythonCall.intOf(call.arg("nb_filter", 0));
            d.kernel = legacyKernel(call, rank);
        } else {
            d.filters = PythonCall.intOf(call.arg("filters", 0));
            d.kernel = PythonCall.intsOf(call.arg("kernel_size", 1), rank);
        }
        d.strides = setting(call, legacy ? "subsample" : "strides", depthwise ? 1 : legacy ? -1 : 2, rank, 1);
        String padding = call.arg(legacy ? "border_mode" : "padding", -1);
        d.padding = padding == null ? "valid" : PythonCall.stringOf(padding);
        d.dilation = setting(call, legacy ? "atrous_rate" : "dilation_rate", -1, rank, 1);
        if (depthwise || d.kind.startsWith("Separable")) {
            String m = call.arg("depth_multiplier", -1);
            d.depthMultiplier = m == null ? Integer.valueOf(1) : PythonCall.intOf(m);
        }
        if (!depthwise) {
            String g = call.arg("groups", -1);
            d.groups = g == null ? Integer.valueOf(1) : PythonCall.intOf(g);
        }
        String format = PythonCall.stringOf(call.arg(legacy ? "dim_ordering" : "data_format", -1));
        d.dataFormat = "channels_first".equals(format) || "th".equals(format) ? "channels_first" : "channels_last";
        String dtype = call.arg("dtype", -1);
        if (dtype == null) {
            // Keras layers compute in floatx (float32) unless the code sets a global policy (applied by the caller)
            d.dtype = "float32";
            d.inferred("dtype");
        } else {
            String policy = PythonCall.stringOf(dtype);
            d.dtype = DtypeNames.normalise(policy != null ? policy : dtype);
            d.mixedPrecision = DtypeNames.mixedPolicy(policy);
        }
        List<Integer> shape = PythonCall.tupleOf(call.keywords.get("input_shape"), true);
        if (shape != null && shape.size() == rank + 1) {
            List<Integer> withBatch = new ArrayList<>(rank + 2);
            withBatch.add(null);
            withBatch.addAll(shape);
            shape = withBatch;
        } else {
            shape = PythonCall.tupleOf(call.keywords.get("batch_input_shape"), true);
        }
        if (shape != null && shape.size() == rank + 2) {
            d.inputShape = shape;
            d.inChannels = shape.get(d.channelAxis(shape));
            if (depthwise) {
                d.groups = d.inChannels;
                d.filters = d.inChannels == null || d.depthMultiplier == null ? null : d.inChannels * d.depthMultiplier;
                d.inferred("filters").inferred("groups");
            }
        }
        return d;
    }

    private static List<Integer> legacyKernel(PythonCall call, int rank) {
        if (rank == 1) {
            return PythonCall.intsOf(call.arg("filter_length", 1), 1);
        }
        String[] keys = rank == 2 ? new String[] {"nb_row", "nb_col"} : new String[] {"kernel_dim1", "kernel_dim2", "kernel_dim3"};
        List<Integer> k = new ArrayList<>(rank);
        for (int i = 0; i < rank; i++) {
            Integer v = PythonCall.intOf(call.arg(keys[i], 1 + i));
            if (v == null) {
                return null;
            }
            k.add(v);
        }
        return k;
    }

    /** A per-dimension setting: its literal, the class default where absent, null where not a literal. */
    private static List<Integer> setting(PythonCall call, String keyword, int position, int rank, int defaultValue) {
        String v = call.arg(keyword, position);
        return v == null ? Collections.nCopies(rank, defaultValue) : PythonCall.intsOf(v, rank);
    }

    /** A PyTorch module: {@code Conv2d(in, out, kernel_size, stride, padding, dilation, groups)}. */
    static ConvDraft torch(String className, PythonCall call) {
        int rank = className.charAt(className.length() - 2) - '0';
        boolean transposed = className.startsWith("ConvTranspose");
        ConvDraft d = new ConvDraft("torch.nn." + className, rank);
        d.inChannels = PythonCall.intOf(call.arg("in_channels", 0));
        d.filters = PythonCall.intOf(call.arg("out_channels", 1));
        d.kernel = PythonCall.intsOf(call.arg("kernel_size", 2), rank);
        d.strides = setting(call, "stride", 3, rank, 1);
        d.dilation = setting(call, "dilation", transposed ? 8 : 5, rank, 1);
        String g = call.arg("groups", 6);
        d.groups = g == null ? Integer.valueOf(1) : PythonCall.intOf(g);
        TorchPadding.apply(d, call.arg("padding", 4));
        d.dataFormat = "channels_first";
        return d;
    }
}
