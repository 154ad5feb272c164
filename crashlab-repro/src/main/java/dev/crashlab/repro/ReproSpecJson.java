package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.Padding;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.stream.Collectors;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads and writes the JSON form of a {@link ReproSpec} ({@code "format": 1}, snake_case), reporting every
 * bad field with its path instead of throwing.
 *
 * <p>NOTE: unknown fields are errors (a misspelt {@code kernal} must not silently become a default). A layer
 * may give {@code "padding": "same"} (or {@code valid}, {@code causal}, {@code full}) instead of
 * {@code pad_begin}/{@code pad_end}; the reader resolves it, and the writer always writes explicit amounts.
 */
public final class ReproSpecJson {

    /** Largest accepted batch, channel count or spatial size: beyond any real model, small enough to stay in int. */
    static final int MAX_SIZE = 1 << 20;

    /**
     * Most elements one tensor of a layer (its input, output or filter) may hold: 2^40, 4 TiB of float32, past any
     * card. Sizes each within {@link #MAX_SIZE} still multiply past {@code long}; a spec over this is refused with
     * words, so that the estimator's sums cannot overflow.
     */
    static final long MAX_ELEMENTS = 1L << 40;

    private static final Set<String> TOP_FIELDS = Set.of("format", "batch", "dtype", "mixed_precision", "layout",
            "mode", "optimizer", "reporter_gpu", "notes", "layers");
    private static final Set<String> LAYER_FIELDS = Set.of("name", "in_channels", "out_channels", "input", "kernel",
            "stride", "padding", "pad_begin", "pad_end", "dilation", "groups", "transposed");
    private static final Set<String> GPU_FIELDS = Set.of("name", "memory_total_mib", "memory_used_mib");

    private ReproSpecJson() {}

    /**
     * What reading a spec document gave: the spec, or (when any field is bad) null and the problems.
     *
     * @param spec the spec, null when {@code problems} is not empty
     * @param problems every bad field found, in document order
     */
    public record Read(ReproSpec spec, List<SpecProblem> problems) {
        public Read {
            problems = List.copyOf(problems);
        }

        /** Whether the document was a valid spec. */
        public boolean ok() {
            return spec != null;
        }
    }

    /** Parses a spec document; never throws for bad input. */
    public static Read read(String text) {
        JsonNode root;
        try {
            root = ReproJson.mapper().readTree(text == null ? "" : text);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            return new Read(null, List.of(new SpecProblem("$", "not JSON" + where + ": " + e.getOriginalMessage())));
        }
        return read(root);
    }

    /** Reads a spec from an already parsed tree (the REST layer gets one from its own mapper). */
    public static Read read(JsonNode root) {
        Reader r = new Reader();
        ReproSpec spec = r.spec(root);
        return r.problems.isEmpty() ? new Read(spec, List.of()) : new Read(null, r.problems);
    }

    /** Writes a spec as an indented document in the current format. */
    public static String write(ReproSpec spec) {
        try {
            return ReproJson.pretty().writeValueAsString(tree(spec));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }

    /** The spec as a JSON tree in the current format. */
    public static ObjectNode tree(ReproSpec spec) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("format", ReproSpec.FORMAT);
        root.put("batch", spec.batch());
        root.put("dtype", spec.dtype().name().toLowerCase(Locale.ROOT));
        root.put("mixed_precision", spec.mixedPrecision());
        root.put("layout", spec.layout().name());
        root.put("mode", spec.mode().label());
        root.put("optimizer", spec.optimizer().label());
        if (spec.reporterGpu() != null) {
            ObjectNode gpu = root.putObject("reporter_gpu");
            gpu.put("name", spec.reporterGpu().name());
            gpu.put("memory_total_mib", spec.reporterGpu().memoryTotalMiB());
            if (spec.reporterGpu().memoryUsedMiB() != null) {
                gpu.put("memory_used_mib", spec.reporterGpu().memoryUsedMiB());
            }
        }
        ArrayNode notes = root.putArray("notes");
        spec.notes().forEach(notes::add);
        ArrayNode layers = root.putArray("layers");
        for (ReproLayer l : spec.layers()) {
            ObjectNode n = layers.addObject();
            n.put("name", l.name());
            n.put("in_channels", l.inChannels());
            n.put("out_channels", l.outChannels());
            ints(n.putArray("input"), l.input());
            ints(n.putArray("kernel"), l.kernel());
            ints(n.putArray("stride"), l.stride());
            ints(n.putArray("pad_begin"), l.padBegin());
            ints(n.putArray("pad_end"), l.padEnd());
            ints(n.putArray("dilation"), l.dilation());
            n.put("groups", l.groups());
            n.put("transposed", l.transposed());
        }
        return root;
    }

    /** Writes a {@link ReproSpec} as its document, in whatever JSON a mapper is writing. */
    public static final class Serializer extends StdSerializer<ReproSpec> {
        private static final long serialVersionUID = 1L;

        public Serializer() {
            super(ReproSpec.class);
        }

        @Override
        public void serialize(ReproSpec spec, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeTree(tree(spec));
        }
    }

    /**
     * Reads a {@link ReproSpec} from its document inside whatever JSON a mapper is reading; a bad document fails the
     * read with every problem's path ({@code spec: layers[0].kernel: missing}).
     */
    public static final class Deserializer extends StdDeserializer<ReproSpec> {
        private static final long serialVersionUID = 1L;

        public Deserializer() {
            super(ReproSpec.class);
        }

        @Override
        public ReproSpec deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            Read read = read((JsonNode) ctxt.readTree(p));
            if (!read.ok()) {
                throw JsonMappingException.from(p, "invalid reproduction spec: "
                        + read.problems().stream().map(SpecProblem::toString).collect(Collectors.joining("; ")));
            }
            return read.spec();
        }
    }

    private static void ints(ArrayNode a, int[] v) {
        for (int x : v) {
            a.add(x);
        }
    }

    /** Walks one document, collecting problems; returns null where the spec cannot be built. */
    /**
     * Says which tensor of {@code p} holds more than {@link #MAX_ELEMENTS} elements (with its count, saturated), or
     * null when none does. Computed without overflow, whatever the sizes.
     */
    static String overLimit(ConvProblem p) {
        long groups = Math.max(1, p.groups());
        String over = over("input", elements(p.batch(), p.inChannels(), p.inDims()));
        over = over != null ? over : over("output", elements(p.batch(), p.outChannels(), p.outDims()));
        return over != null ? over : over("filter", p.transposed()
                ? elements(p.inChannels(), p.outChannels() / groups, p.kernel())
                : elements(p.outChannels(), p.inChannels() / groups, p.kernel()));
    }

    private static String over(String tensor, long n) {
        if (n <= MAX_ELEMENTS) {
            return null;
        }
        return "its " + tensor + " tensor holds " + (n == Long.MAX_VALUE ? "more than 2^63" : String.valueOf(n))
                + " elements, more than the 2^40 (" + MAX_ELEMENTS + ") a spec may describe; check the batch, channel and"
                + " spatial sizes";
    }

    /** {@code a * b * prod(dims)} (all non-negative), or {@link Long#MAX_VALUE} when that overflows. */
    static long elements(long a, long b, int[] dims) {
        if (a == Long.MAX_VALUE || b == Long.MAX_VALUE) {
            return a == 0 || b == 0 ? 0 : Long.MAX_VALUE;
        }
        try {
            long n = Math.multiplyExact(a, b);
            for (int d : dims) {
                n = Math.multiplyExact(n, (long) d);
            }
            return n;
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static final class Reader {
        final List<SpecProblem> problems = new ArrayList<>();

        void problem(String path, String reason) {
            problems.add(new SpecProblem(path, reason));
        }

        ReproSpec spec(JsonNode root) {
            if (root == null || !root.isObject()) {
                problem("$", "must be a JSON object");
                return null;
            }
            unknownFields(root, TOP_FIELDS, "");
            JsonNode format = root.get("format");
            if (format == null) {
                problem("format", "missing; this version reads format " + ReproSpec.FORMAT);
            } else if (!format.isInt() || format.intValue() != ReproSpec.FORMAT) {
                problem("format", "is " + format + "; this version reads format " + ReproSpec.FORMAT);
                return null;
            }
            Integer batch = size(root, "batch", "batch", null);
            ConvProblem.DType dtype = choice(root, "dtype", ConvProblem.DType.class, ConvProblem.DType.FLOAT32);
            ConvProblem.Layout layout = choice(root, "layout", ConvProblem.Layout.class, ConvProblem.Layout.NHWC);
            ReproSpec.Mode mode = choice(root, "mode", ReproSpec.Mode.class, ReproSpec.Mode.TRAINING);
            ReproSpec.Optimizer optimizer = choice(root, "optimizer", ReproSpec.Optimizer.class, ReproSpec.Optimizer.ADAM);
            boolean mixed = bool(root, "mixed_precision", "mixed_precision", false);
            ReproSpec.ReporterGpu gpu = gpu(root.get("reporter_gpu"));
            List<String> notes = notes(root.get("notes"));
            List<ReproLayer> layers = layers(root.get("layers"), batch, dtype, layout);
            if (!problems.isEmpty()) {
                return null;
            }
            return new ReproSpec(layers, batch, dtype, mixed, layout, mode, optimizer, gpu, notes);
        }

        void unknownFields(JsonNode obj, Set<String> known, String prefix) {
            for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!known.contains(f)) {
                    problem(prefix + f, "unknown field (known: " + String.join(", ", new java.util.TreeSet<>(known)) + ")");
                }
            }
        }

        Integer size(JsonNode obj, String field, String path, Integer fallback) {
            JsonNode n = obj.get(field);
            if (n == null || n.isNull()) {
                if (fallback == null) {
                    problem(path, "missing");
                }
                return fallback;
            }
            if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 1 || n.intValue() > MAX_SIZE) {
                problem(path, "must be an integer from 1 to " + MAX_SIZE + ", not " + n);
                return fallback;
            }
            return n.intValue();
        }

        boolean bool(JsonNode obj, String field, String path, boolean fallback) {
            JsonNode n = obj.get(field);
            if (n == null || n.isNull()) {
                return fallback;
            }
            if (!n.isBoolean()) {
                problem(path, "must be true or false, not " + n);
                return fallback;
            }
            return n.booleanValue();
        }

        <E extends Enum<E>> E choice(JsonNode obj, String field, Class<E> type, E fallback) {
            JsonNode n = obj.get(field);
            if (n == null || n.isNull()) {
                return fallback;
            }
            List<String> names = new ArrayList<>();
            for (E e : type.getEnumConstants()) {
                names.add(type == ConvProblem.Layout.class ? e.name() : e.name().toLowerCase(Locale.ROOT));
                if (n.isTextual() && e.name().equalsIgnoreCase(n.textValue())) {
                    return e;
                }
            }
            problem(field, "must be one of " + String.join(", ", names) + ", not " + n);
            return fallback;
        }

        ReproSpec.ReporterGpu gpu(JsonNode n) {
            if (n == null || n.isNull()) {
                return null;
            }
            if (!n.isObject()) {
                problem("reporter_gpu", "must be an object {name, memory_total_mib, memory_used_mib}");
                return null;
            }
            unknownFields(n, GPU_FIELDS, "reporter_gpu.");
            JsonNode name = n.get("name");
            if (name != null && !name.isNull() && !name.isTextual()) {
                problem("reporter_gpu.name", "must be a string");
            }
            Long total = mib(n, "memory_total_mib", true);
            Long used = mib(n, "memory_used_mib", false);
            if (total == null) {
                return null;
            }
            if (used != null && used > total) {
                problem("reporter_gpu.memory_used_mib", "is more than memory_total_mib (" + used + " > " + total + ")");
            }
            return new ReproSpec.ReporterGpu(name == null || name.isNull() ? null : name.asText(), total, used);
        }

        Long mib(JsonNode gpu, String field, boolean required) {
            JsonNode n = gpu.get(field);
            if (n == null || n.isNull()) {
                if (required) {
                    problem("reporter_gpu." + field, "missing");
                }
                return null;
            }
            if (!n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0 || n.longValue() > (1L << 30)) {
                problem("reporter_gpu." + field, "must be a whole number of MiB, not " + n);
                return null;
            }
            return n.longValue();
        }

        List<String> notes(JsonNode n) {
            List<String> out = new ArrayList<>();
            if (n == null || n.isNull()) {
                return out;
            }
            if (!n.isArray()) {
                problem("notes", "must be an array of strings");
                return out;
            }
            for (int i = 0; i < n.size(); i++) {
                if (!n.get(i).isTextual()) {
                    problem("notes[" + i + "]", "must be a string");
                } else {
                    out.add(n.get(i).textValue());
                }
            }
            return out;
        }

        List<ReproLayer> layers(JsonNode n, Integer batch, ConvProblem.DType dtype, ConvProblem.Layout layout) {
            List<ReproLayer> out = new ArrayList<>();
            if (n == null || n.isNull()) {
                problem("layers", "missing");
                return out;
            }
            if (!n.isArray() || n.isEmpty()) {
                problem("layers", "must be a non-empty array of layers");
                return out;
            }
            for (int i = 0; i < n.size(); i++) {
                ReproLayer l = layer(n.get(i), "layers[" + i + "]", i);
                if (l == null) {
                    continue;
                }
                try {
                    // the problem's own checks: groups divide channels, the kernel fits the padded input
                    ConvProblem p = l.problem(batch == null ? 1 : batch, dtype, layout);
                    String over = overLimit(p);
                    if (over != null) {
                        problem("layers[" + i + "]", l.name() + ": " + over);
                        continue;
                    }
                    out.add(l);
                } catch (IllegalArgumentException e) {
                    problem("layers[" + i + "]", e.getMessage());
                }
            }
            return out;
        }

        ReproLayer layer(JsonNode n, String path, int index) {
            if (!n.isObject()) {
                problem(path, "must be an object");
                return null;
            }
            int before = problems.size();
            unknownFields(n, LAYER_FIELDS, path + ".");
            JsonNode nameNode = n.get("name");
            String name = "layer" + index;
            if (nameNode != null && !nameNode.isNull()) {
                if (nameNode.isTextual() && !nameNode.textValue().isBlank()) {
                    name = nameNode.textValue();
                } else {
                    problem(path + ".name", "must be a non-empty string");
                }
            }
            Integer in = size(n, "in_channels", path + ".in_channels", null);
            Integer outCh = size(n, "out_channels", path + ".out_channels", null);
            int[] input = dims(n, "input", path, 0, 1, null);
            if (input == null) {
                return null;
            }
            int rank = input.length;
            int[] kernel = dims(n, "kernel", path, rank, 1, null);
            int[] stride = dims(n, "stride", path, rank, 1, 1);
            int[] dilation = dims(n, "dilation", path, rank, 1, 1);
            Integer groups = size(n, "groups", path + ".groups", 1);
            boolean transposed = bool(n, "transposed", path + ".transposed", false);
            int[] padBegin;
            int[] padEnd;
            JsonNode padding = n.get("padding");
            if (padding != null && !padding.isNull()) {
                if (n.has("pad_begin") || n.has("pad_end")) {
                    problem(path + ".padding", "give either padding or pad_begin/pad_end, not both");
                    return null;
                }
                Padding.Resolved r = padding.isTextual() && kernel != null && stride != null && dilation != null
                        ? Padding.resolve(padding.textValue(), input, kernel, stride, dilation, transposed) : null;
                if (r == null) {
                    if (padding.isTextual() && kernel != null) {
                        problem(path + ".padding", "must be valid, same, causal or full, not " + padding);
                    }
                    return null;
                }
                padBegin = r.begin();
                padEnd = r.end();
            } else {
                padBegin = dims(n, "pad_begin", path, rank, 0, 0);
                padEnd = dims(n, "pad_end", path, rank, 0, 0);
            }
            if (problems.size() > before || kernel == null || stride == null || dilation == null || padBegin == null
                    || padEnd == null) {
                return null;
            }
            return new ReproLayer(name, in, outCh, input, kernel, stride, padBegin, padEnd, dilation, groups, transposed);
        }

        /** Reads an int array of {@code rank} entries (any of 1..3 when rank is 0), or fills it with {@code fill}. */
        int[] dims(JsonNode layer, String field, String path, int rank, int min, Integer fill) {
            JsonNode n = layer.get(field);
            String p = path + "." + field;
            if (n == null || n.isNull()) {
                if (fill == null) {
                    problem(p, "missing");
                    return null;
                }
                int[] v = new int[rank];
                java.util.Arrays.fill(v, fill);
                return v;
            }
            if (!n.isArray() || (rank == 0 ? n.size() < 1 || n.size() > 3 : n.size() != rank)) {
                problem(p, rank == 0 ? "must be an array of 1 to 3 spatial sizes (D, H, W order)"
                        : "must be an array of " + rank + " integers (one per spatial dimension of input)");
                return null;
            }
            int[] v = new int[n.size()];
            for (int i = 0; i < v.length; i++) {
                JsonNode x = n.get(i);
                if (!x.isIntegralNumber() || !x.canConvertToInt() || x.intValue() < min || x.intValue() > MAX_SIZE) {
                    problem(p + "[" + i + "]", "must be an integer from " + min + " to " + MAX_SIZE + ", not " + x);
                    return null;
                }
                v[i] = x.intValue();
            }
            return v;
        }
    }
}
