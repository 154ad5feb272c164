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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the convolution PyTorch prints when cuDNN fails: the "You can try to repro this exception" snippet
 * ({@code data = torch.randn([8, 1, 256, 256], dtype=torch.half, ...)}, {@code net = torch.nn.Conv2d(...)})
 * and the {@code ConvolutionParams} block with its input, output and weight descriptors, into one
 * {@code ConvSpec} per failure and the batch size as a {@code TrainingSetup}.
 *
 * <p>NOTE: the descriptors win over the snippet: PyTorch's snippet leaves out the memory format it ran
 * with, while the weight's {@code tensor_format} (or the strides, where the channel stride is 1) shows
 * channels-last. cuDNN's 3-slot arrays ({@code padding = [1, 1, 0]}) are cut to the layer's rank.
 * Descriptors cut off mid-list are ignored in favour of the snippet. Shapes are given in the data format's
 * order: (N, H, W, C) for channels-last. The name is the submodule the traceback called last
 * ({@code x = self.conv1(x)}) where there is one, and is then listed in {@code inferred}.
 */
public final class PytorchCudnnReproParser implements LineFedParser {

    private static final Pattern DATA = Pattern.compile("^data = torch\\.randn\\(\\[([\\d,\\s]{1,100})\\]");
    private static final Pattern DATA_DTYPE = Pattern.compile("dtype=torch\\.(\\w{1,20})");
    private static final Pattern MEMORY_FORMAT = Pattern.compile("memory_format=torch\\.(\\w{1,30})");
    private static final Pattern NET = Pattern.compile("^net = torch\\.nn\\.(Conv[123]d|ConvTranspose[123]d)\\s?\\(");
    private static final Pattern CAST = Pattern.compile("^net = net\\.cuda\\(\\)\\.(half|float|double|bfloat16)\\(\\)");
    private static final Pattern KEY_VALUE = Pattern.compile("^(\\w{1,30}) = (.{0,200})$");
    private static final Pattern DESCRIPTOR = Pattern.compile("^(input|output|weight): (?:Tensor|Filter)Descriptor\\b");
    private static final Pattern INT = Pattern.compile("-?\\d{1,10}");
    /** A traceback's source line calling a submodule: {@code x = self.conv1(x)}. */
    private static final Pattern MODULE_CALL = Pattern.compile("^(?:[\\w, ]{1,80}=\\s?)?(?:return )?self\\.([A-Za-z]\\w{0,60})\\(");
    /** Traceback lines between the user's call and the failure: library frames and their code. */
    private static final int NAME_WINDOW = 40;

    @Override
    public String name() {
        return "pytorch-cudnn-repro";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.CONSOLE_LOG, ArtifactType.TEXT);
    }

    /** One failure's snippet and block, as read so far. */
    private static final class Failure {
        String moduleName;
        List<Integer> data;
        String dataDtype;
        String memoryFormat;
        String cast;
        ConvDraft net;
        boolean block;
        final Map<String, String> params = new HashMap<>();
        final Map<String, Map<String, String>> descriptors = new HashMap<>();
        final List<SourceRef> sources = new ArrayList<>();

        boolean any() {
            return data != null || net != null || block;
        }
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        return ArtifactLines.read(input, this);
    }

    @Override
    public List<String> lineLiterals() {
        // every check below starts from one of these; within a ConvolutionParams block every line counts
        return List.of("self.", "You can try to repro this exception", "data = torch.randn([", "net = ", "ConvolutionParams");
    }

    @Override
    public int maxLine() {
        return ArtifactLines.CODE_LINES;
    }

    @Override
    public Reading startReading(ParseInput input) {
        return new Lines(input);
    }

    /** One artifact's reading. */
    private static final class Lines implements Reading {
        private final ParseInput input;
        /** Facts found on the way (a failure ends when the next begins). */
        private final ParseResult.Builder out = new ParseResult.Builder();
        private final Failure[] current = {new Failure()};
        private final String[] descriptor = {null};
        // the last submodule a traceback called (self.conv1(x)): the failing layer's attribute name
        private final String[] module = {null};
        private final long[] moduleLine = {0};

        Lines(ParseInput input) {
            this.input = input;
        }

        @Override
        public boolean wantsEveryLine() {
            return current[0].block;
        }

        @Override
        public void finish(ParseResult.Builder result) {
            next(current[0], out);
            out.build().facts().forEach(result::fact);
        }

        @Override
        public void line(long number, String text) {
            String t = text.strip();
            if (t.isEmpty() || t.length() > 1000) {
                return;
            }
            Failure f = current[0];
            // each regex below needs a literal the cheap checks look for first: most lines of a log hold none
            if (t.contains("self.")) {
                Matcher moduleCall = MODULE_CALL.matcher(t);
                if (moduleCall.find() && !moduleCall.group(1).equals("forward")) {
                    module[0] = moduleCall.group(1);
                    moduleLine[0] = number;
                }
            }
            if (t.contains("You can try to repro this exception")) {
                current[0] = next(f, out);
                descriptor[0] = null;
                if (module[0] != null && number - moduleLine[0] <= NAME_WINDOW) {
                    current[0].moduleName = module[0];
                }
                module[0] = null;
                return;
            }
            boolean snippet = t.startsWith("data = torch.randn([") || t.startsWith("net = ");
            Matcher m = snippet ? DATA.matcher(t) : null;
            if (m != null && m.find()) {
                if (f.data != null || f.block) {
                    f = current[0] = next(f, out);
                }
                f.data = ints(m.group(1));
                Matcher d = DATA_DTYPE.matcher(t);
                f.dataDtype = d.find() ? d.group(1) : null;
                Matcher mf = MEMORY_FORMAT.matcher(t);
                f.memoryFormat = mf.find() ? mf.group(1) : null;
                f.sources.add(input.at(number, text));
                return;
            }
            m = snippet ? NET.matcher(t) : null;
            if (m != null && m.find()) {
                if (f.net != null || f.block) {
                    f = current[0] = next(f, out);
                }
                PythonCall call = PythonCall.at(t, m.end() - 1);
                if (call != null) {
                    f.net = ModelCodeScanner.torch(m.group(1), call);
                    f.sources.add(input.at(number, text));
                }
                return;
            }
            m = snippet ? CAST.matcher(t) : null;
            if (m != null && m.find()) {
                f.cast = m.group(1);
                return;
            }
            if (t.startsWith("ConvolutionParams")) {
                if (f.block) {
                    f = current[0] = next(f, out);
                }
                f.block = true;
                descriptor[0] = null;
                f.sources.add(input.at(number, text));
                return;
            }
            if (!f.block) {
                return;
            }
            m = DESCRIPTOR.matcher(t);
            if (m.find()) {
                descriptor[0] = m.group(1);
                f.descriptors.put(descriptor[0], new HashMap<>());
                return;
            }
            if (t.startsWith("Pointer addresses") || t.startsWith("Forward algorithm") || t.startsWith("Traceback")) {
                descriptor[0] = null;
                return;
            }
            m = KEY_VALUE.matcher(t);
            if (m.matches()) {
                if (descriptor[0] == null) {
                    f.params.putIfAbsent(m.group(1), m.group(2).strip());
                } else {
                    f.descriptors.get(descriptor[0]).putIfAbsent(m.group(1), m.group(2).strip());
                    if (m.group(1).equals("dimA") && descriptor[0].equals("input")) {
                        f.sources.add(input.at(number, text));
                    }
                }
            }
        }
    }

    /** Emits {@code f} where it holds a convolution, and returns a fresh failure. */
    private static Failure next(Failure f, ParseResult.Builder out) {
        if (f.any()) {
            ConvDraft d = resolve(f);
            if (d != null) {
                out.fact(d.toSpec());
                Integer batch = d.inputShape == null || d.inputShape.isEmpty() ? null : d.inputShape.get(0);
                if (batch != null) {
                    out.fact(new TrainingSetup(batch, null, null, List.of(f.sources.get(0))));
                }
            }
        }
        return new Failure();
    }

    private static ConvDraft resolve(Failure f) {
        List<Integer> weight = complete(f.descriptors.get("weight"));
        List<Integer> in = complete(f.descriptors.get("input"));
        List<Integer> outDims = complete(f.descriptors.get("output"));
        if (in == null) {
            in = f.data;
        }
        int rank = f.net != null ? f.net.rank : weight != null ? weight.size() - 2 : in != null ? in.size() - 2 : 0;
        if (rank < 1 || rank > 3 || f.sources.isEmpty()) {
            return null;
        }
        ConvDraft d = f.net != null ? f.net : new ConvDraft("torch.nn.Conv" + rank + "d", rank);
        if (weight != null && weight.size() == rank + 2) {
            d.filters = weight.get(0);
            d.kernel = new ArrayList<>(weight.subList(2, rank + 2));
        }
        if (in != null && in.size() == rank + 2) {
            d.inChannels = in.get(1);
        } else {
            in = null;
        }
        Integer groups = intOf(f.params.get("groups"));
        if (groups != null) {
            d.groups = groups;
        }
        List<Integer> padding = slots(f.params.get("padding"), rank);
        if (padding != null) {
            d.padding = "explicit";
            d.explicitPadding = padding;
        }
        List<Integer> stride = slots(f.params.get("stride"), rank);
        if (stride != null) {
            d.strides = stride;
        }
        List<Integer> dilation = slots(f.params.get("dilation"), rank);
        if (dilation != null) {
            d.dilation = dilation;
        }
        Map<String, String> inDesc = f.descriptors.getOrDefault("input", Map.of());
        String dtype = DtypeNames.normalise(f.params.get("data_type"));
        if (dtype == null) {
            dtype = DtypeNames.normalise(inDesc.get("type"));
        }
        if (dtype == null) {
            dtype = DtypeNames.normalise(f.dataDtype);
        }
        if (dtype == null) {
            dtype = DtypeNames.normalise(f.cast);
        }
        d.dtype = dtype;
        d.dataFormat = layout(f, in);
        if (outDims == null || outDims.size() != rank + 2) {
            outDims = computedOutput(d, in);
            if (outDims != null) {
                d.inferred("outputShape");
            }
        }
        d.inputShape = ordered(in, d.dataFormat);
        d.outputShape = ordered(outDims, d.dataFormat);
        if (f.moduleName != null) {
            // read from the traceback's last submodule call, not from the snippet: a good guess, not a fact
            d.name = f.moduleName;
            d.inferred("name");
        }
        d.sources.clear();
        d.sources.addAll(f.sources);
        return d;
    }

    /** Channels-last where the weight says so, else where a tensor's strides show it, else where the snippet asks for it. */
    private static String layout(Failure f, List<Integer> in) {
        String format = f.descriptors.getOrDefault("weight", Map.of()).get("tensor_format");
        if (format != null && format.contains("NHWC")) {
            return "channels_last";
        }
        if (format != null && format.contains("NCHW")) {
            return "channels_first";
        }
        for (String name : List.of("output", "input")) {
            Map<String, String> desc = f.descriptors.get(name);
            List<Integer> dims = complete(desc);
            List<Integer> strides = desc == null ? null : ints(desc.get("strideA"));
            if (dims != null && strides != null && strides.size() == dims.size() && dims.size() >= 3 && dims.get(1) > 1) {
                // channels-last: the channel stride is 1 and the innermost spatial stride is C
                if (strides.get(1) == 1 && strides.get(strides.size() - 1).equals(dims.get(1))) {
                    return "channels_last";
                }
                return "channels_first";
            }
        }
        return "channels_last".equals(f.memoryFormat) || "channels_last_3d".equals(f.memoryFormat)
                ? "channels_last" : "channels_first";
    }

    private static List<Integer> computedOutput(ConvDraft d, List<Integer> in) {
        if (in == null || d.kernel == null || d.strides == null || d.dilation == null || d.explicitPadding == null
                || d.filters == null || d.transposed()) {
            return null;
        }
        List<Integer> out = new ArrayList<>(d.rank + 2);
        out.add(in.get(0));
        out.add(d.filters);
        for (int i = 0; i < d.rank; i++) {
            int p = d.explicitPadding.get(i);
            out.add(ConvArithmetic.torchConv(in.get(2 + i), d.kernel.get(i), d.strides.get(i), d.dilation.get(i), p, p));
        }
        return out;
    }

    /** PyTorch's (N, C, spatial...) dims in the data format's order. */
    private static List<Integer> ordered(List<Integer> nchw, String format) {
        if (nchw == null || !"channels_last".equals(format)) {
            return nchw;
        }
        List<Integer> out = new ArrayList<>(nchw.size());
        out.add(nchw.get(0));
        out.addAll(nchw.subList(2, nchw.size()));
        out.add(nchw.get(1));
        return out;
    }

    /** A descriptor's {@code dimA} where it has all {@code nbDims} entries; null where cut off or absent. */
    private static List<Integer> complete(Map<String, String> desc) {
        if (desc == null) {
            return null;
        }
        List<Integer> dims = ints(desc.get("dimA"));
        Integer nb = intOf(desc.get("nbDims"));
        if (dims == null || dims.isEmpty() || nb != null && nb != dims.size()) {
            return null;
        }
        return dims;
    }

    /** The first {@code rank} entries of a cuDNN array ({@code [1, 1, 0]}). */
    private static List<Integer> slots(String v, int rank) {
        List<Integer> all = ints(v);
        return all == null || all.size() < rank ? null : new ArrayList<>(all.subList(0, rank));
    }

    private static List<Integer> ints(String v) {
        if (v == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        Matcher m = INT.matcher(v);
        while (m.find() && out.size() < 16) {
            long l = Long.parseLong(m.group());
            if (l < 0 || l > KerasConfig.MAX_DIM) {
                return null;
            }
            out.add((int) l);
        }
        return out;
    }

    private static Integer intOf(String v) {
        List<Integer> all = ints(v);
        return all == null || all.size() != 1 ? null : all.get(0);
    }
}
