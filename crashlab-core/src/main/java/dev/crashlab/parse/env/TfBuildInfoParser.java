package dev.crashlab.parse.env;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads TensorFlow's {@code tf.sysconfig.get_build_info()} printouts (dict or OrderedDict, one line or
 * pretty-printed) and {@code tf.__version__} lines into the TensorFlow build and version.
 */
public final class TfBuildInfoParser implements ArtifactParser {

    private static final String ORIGIN = "tf build info";
    private static final Pattern PAIR_STRING = Pattern.compile("['\"](\\w{1,60})['\"]\\s{0,20}[:,]\\s{0,20}['\"]([^'\"]{0,500})['\"]");
    private static final Pattern PAIR_BOOL = Pattern.compile("['\"](\\w{1,60})['\"]\\s{0,20}[:,]\\s{0,20}(True|False)\\b");
    private static final Pattern KEY_ALONE = Pattern.compile("['\"](\\w{1,60})['\"]\\s{0,20}[:,]\\s{0,20}$");
    private static final Pattern VALUE_ALONE = Pattern.compile("^\\s{0,200}['\"]([^'\"]{0,500})['\"]");
    private static final Pattern TF_VERSION = Pattern.compile(
            "(?i)(?:tensorflow(?: version)?|tf\\.__version__|tf\\.version\\.version|tf version)\\)?\\s{0,10}[:=,]?\\s{0,10}['\"]?(\\d{1,3}\\.\\d{1,3}(?:\\.\\d{1,4})?(?:[\\w+\\-]{1,40})?)['\"]?\\s{0,10}\\)?\\s{0,10}$");
    private static final Pattern BARE_VERSION = Pattern.compile("^['\"]?(\\d{1,3}\\.\\d{1,3}(?:\\.\\d{1,4})?(?:[\\w+\\-]{1,40})?)['\"]?$");
    /** A GPU architecture in {@code cuda_compute_capabilities}: {@code sm_86} has SASS, {@code compute_86} only PTX. */
    private static final Pattern ARCH = Pattern.compile("['\"]((?:sm|compute)_\\d{2,3}[a-z]?)['\"]");
    private static final Set<String> WINDOWS_KEYS = Set.of("msvcp_dll_names", "cudart_dll_name", "cudnn_dll_name", "nvcuda_dll_name");

    @Override
    public String name() {
        return "tf-build-info";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.TF_BUILD_INFO);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        Map<String, String> values = new HashMap<>();
        Map<String, SourceRef> refs = new HashMap<>();
        String[] pendingKey = new String[1];
        boolean[] versionAsked = new boolean[1];
        List<String> versions = new ArrayList<>();
        List<SourceRef> versionRefs = new ArrayList<>();
        boolean[] inArchList = new boolean[1];
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            if (text.length() > 2000) {
                return;
            }
            SourceRef ref = input.at(number, text);
            String t = text.strip();
            if (pendingKey[0] != null) {
                Matcher v = VALUE_ALONE.matcher(text);
                if (v.find()) {
                    put(values, refs, pendingKey[0], v.group(1), ref);
                }
                pendingKey[0] = null;
            }
            if (text.contains("cuda_compute_capabilities")) {
                inArchList[0] = true;
            }
            if (inArchList[0]) {
                // one fact per architecture, so "is sm_86 in the build" is a lookup (gpu-arch-not-in-build)
                Matcher a = ARCH.matcher(text);
                int found = 0;
                while (a.find() && found++ < 64) {
                    out.fact(new VersionFact("tensorflow-cuda-arch", a.group(1), ORIGIN, List.of(ref)));
                }
                int close = text.indexOf(']', Math.max(0, text.indexOf("cuda_compute_capabilities")));
                if (close >= 0) {
                    inArchList[0] = false;
                }
            }
            Matcher m = PAIR_STRING.matcher(text);
            while (m.find()) {
                put(values, refs, m.group(1), m.group(2), ref);
            }
            m = PAIR_BOOL.matcher(text);
            while (m.find()) {
                put(values, refs, m.group(1), m.group(2), ref);
            }
            m = KEY_ALONE.matcher(text);
            if (m.find()) {
                pendingKey[0] = m.group(1);
            }
            Matcher bare = BARE_VERSION.matcher(t);
            if (versionAsked[0] && bare.matches()) {
                versions.add(bare.group(1));
                versionRefs.add(ref);
            } else {
                m = TF_VERSION.matcher(t);
                if (m.find()) {
                    versions.add(m.group(1));
                    versionRefs.add(ref);
                }
            }
            // ">>> tf.__version__" in a REPL prints the version alone on the next line
            String asked = t.endsWith(")") ? t.substring(0, t.length() - 1) : t;
            versionAsked[0] = asked.endsWith("__version__") || asked.endsWith("VERSION");
        });
        String tfVersion = versions.isEmpty() ? null : versions.get(0);
        for (int i = 0; i < versions.size(); i++) {
            out.fact(new VersionFact("tensorflow", versions.get(i), ORIGIN, List.of(versionRefs.get(i))));
        }
        build(out, values, refs, tfVersion);
        PlatformDraft platform = new PlatformDraft();
        for (String key : WINDOWS_KEYS) {
            if (refs.containsKey(key)) {
                platform.family("windows", refs.get(key));
            }
        }
        String compiler = values.get("cpu_compiler");
        if (compiler != null) {
            String c = compiler.toLowerCase(Locale.ROOT);
            platform.family(c.endsWith("cl.exe") ? "windows" : c.contains("linux") || c.endsWith("gcc") ? "linux" : null,
                    refs.get("cpu_compiler"));
        }
        platform.emit(out);
        return out.build();
    }

    private static void build(ParseResult.Builder out, Map<String, String> values, Map<String, SourceRef> refs, String tfVersion) {
        String cuda = values.get("cuda_version");
        String cudnn = values.get("cudnn_version");
        String isCuda = values.get("is_cuda_build");
        if (cuda == null && cudnn == null && isCuda == null) {
            return;
        }
        List<SourceRef> sources = new ArrayList<>();
        for (String key : List.of("cuda_version", "cudnn_version", "is_cuda_build")) {
            if (refs.containsKey(key) && !sources.contains(refs.get(key))) {
                sources.add(refs.get(key));
            }
        }
        boolean cpuOnly = "False".equals(isCuda) && !"True".equals(values.get("is_rocm_build"));
        for (String flag : List.of("is_rocm_build", "is_tensorrt_build")) {
            String v = values.get(flag);
            if ("True".equals(v) || "False".equals(v)) {
                String component = "tensorflow-" + flag.substring(3).replace('_', '-');
                out.fact(new VersionFact(component, v.toLowerCase(Locale.ROOT), ORIGIN, List.of(refs.get(flag))));
            }
        }
        out.fact(new BuildInfo("tensorflow", tfVersion, windowsNumber(cuda, true), windowsNumber(cudnn, false), cpuOnly, sources));
    }

    /**
     * Returns a build-info version as a plain version: Windows builds print {@code 64_112} for CUDA 11.2
     * and {@code 64_8} for cuDNN 8; null and empty stay null.
     */
    static String windowsNumber(String value, boolean cuda) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.startsWith("64_")) {
            String digits = v.substring(3);
            if (!digits.isEmpty() && digits.chars().allMatch(Character::isDigit)) {
                return cuda ? VersionText.compactCuda(digits) : digits;
            }
        }
        return v;
    }

    private static void put(Map<String, String> values, Map<String, SourceRef> refs, String key, String value, SourceRef ref) {
        if (values.size() < 100 && !values.containsKey(key)) {
            values.put(key, value);
            refs.put(key, ref);
        }
    }
}
