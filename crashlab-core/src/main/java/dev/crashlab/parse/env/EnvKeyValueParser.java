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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads free-form {@code key: value} / {@code key=value} environment files, as people and the bundle
 * collector write them ({@code cuda: 11.2}, {@code gpu: RTX 3080 10GB}), into the shared environment facts.
 */
public final class EnvKeyValueParser implements ArtifactParser {

    private static final String ORIGIN = "env";
    /** Key spellings (normalized: lowercase, words joined by {@code -}) and what they state. */
    private static final Map<String, Key> KEYS = Map.ofEntries(
            Map.entry("os", Key.OS), Map.entry("operating-system", Key.OS), Map.entry("system", Key.OS),
            Map.entry("os-version", Key.OS), Map.entry("platform", Key.OS), Map.entry("windows", Key.OS),
            Map.entry("distro", Key.OS), Map.entry("distribution", Key.OS), Map.entry("os-platform", Key.OS),
            Map.entry("python", Key.PYTHON), Map.entry("python-version", Key.PYTHON), Map.entry("py", Key.PYTHON),
            Map.entry("tensorflow", Key.TENSORFLOW), Map.entry("tf", Key.TENSORFLOW),
            Map.entry("tensorflow-version", Key.TENSORFLOW), Map.entry("tf-version", Key.TENSORFLOW),
            Map.entry("tensorflow-gpu", Key.TENSORFLOW),
            Map.entry("torch", Key.TORCH), Map.entry("pytorch", Key.TORCH), Map.entry("torch-version", Key.TORCH),
            Map.entry("pytorch-version", Key.TORCH),
            Map.entry("cuda", Key.CUDA), Map.entry("cuda-version", Key.CUDA), Map.entry("cuda-toolkit", Key.CUDA),
            Map.entry("cudatoolkit", Key.CUDA), Map.entry("cuda-runtime", Key.CUDA),
            Map.entry("cuda-toolkit-version", Key.CUDA),
            Map.entry("cudnn", Key.CUDNN), Map.entry("cudnn-version", Key.CUDNN),
            Map.entry("driver", Key.DRIVER), Map.entry("nvidia-driver", Key.DRIVER), Map.entry("driver-version", Key.DRIVER),
            Map.entry("gpu-driver", Key.DRIVER), Map.entry("nvidia-driver-version", Key.DRIVER),
            Map.entry("display-driver", Key.DRIVER),
            Map.entry("container", Key.CONTAINER), Map.entry("container-image", Key.CONTAINER),
            Map.entry("docker-image", Key.CONTAINER), Map.entry("docker", Key.CONTAINER),
            Map.entry("gpu", Key.GPU), Map.entry("gpus", Key.GPU), Map.entry("graphics-card", Key.GPU),
            Map.entry("graphics", Key.GPU), Map.entry("video-card", Key.GPU), Map.entry("gpu-model", Key.GPU),
            Map.entry("gpu-models", Key.GPU), Map.entry("gpu-name", Key.GPU), Map.entry("card", Key.GPU),
            Map.entry("cpu", Key.CPU), Map.entry("processor", Key.CPU), Map.entry("cpu-model", Key.CPU),
            Map.entry("model-name", Key.CPU), // lscpu and /proc/cpuinfo
            Map.entry("arch", Key.ARCH), Map.entry("architecture", Key.ARCH),
            Map.entry("cpu-flags", Key.CPU_FLAGS), Map.entry("cpu-features", Key.CPU_FLAGS),
            Map.entry("flags", Key.CPU_FLAGS));
    private static final Pattern KEY_VALUE = Pattern.compile("^[-*•\\s]{0,4}([A-Za-z][A-Za-z0-9 _.\\-/()&]{0,60}?)\\s{0,8}(?::|=)\\s{0,40}(.*)$");
    /** Requirements written inside a value ({@code conda, cudatoolkit=10.2}, {@code pip install tensorflow==2.4.1}). */
    private static final Pattern PIN = Pattern.compile("(?<![\\w.-])([A-Za-z][\\w.\\-]{0,60})={1,2}(\\d{1,9}(?:\\.[\\w]{1,20}){0,6}(?:\\+\\w{1,20})?)");
    private static final Pattern GPU_COUNT = Pattern.compile("^(\\d{1,3}) ?[x×] ?(.+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern GPU_MEMORY = Pattern.compile("^(.*?)\\s*\\b(\\d{1,6}(?:\\.\\d{1,2})?) ?(GB|GiB|G|MB|MiB)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern TORCH_WHEEL_INDEX = Pattern.compile("/whl/(?:(cu\\d{2,3})|(cpu))\\b");
    private static final Pattern TORCH_WHEEL_TAG = Pattern.compile("(?<![\\w.-])torch-(\\d{1,2}\\.\\d{1,2}(?:\\.\\d{1,3})?)\\+(?:cu(\\d{2,3})|(cpu))\\b");
    /** A value saying the framework was built from source ({@code compiled from source}, TF's {@code _python_build}). */
    private static final Pattern SOURCE_BUILD = Pattern.compile("(?i)\\b(?:compiled|built|build|installed)\\s{1,4}from\\s{1,4}(?:the\\s{1,4})?source\\b|\\b_python_build\\b");
    private static final Pattern SOURCE_CUDA = Pattern.compile("(?i)\\bcuda(?:\\s{0,4}toolkit)?\\s{0,4}v?(\\d{1,2}(?:\\.\\d{1,2})?)\\b");
    private static final Pattern SOURCE_CUDNN = Pattern.compile("(?i)\\bcudnn\\s{0,4}v?(\\d{1,2}(?:\\.\\d{1,2}){0,2})\\b");
    private static final Pattern REMARK = Pattern.compile("\\s*\\([^()]{0,200}\\)\\s*$");
    private static final Pattern FORM_HEADING = Pattern.compile("^#{2,4}\\s+(\\S.{0,80})$");
    private static final Set<String> NO_GPU = Set.of("none", "no", "no gpu", "cpu", "cpu only", "n/a", "-", "0");

    /** What a key states. */
    private enum Key { OS, PYTHON, TENSORFLOW, TORCH, CUDA, CUDNN, DRIVER, GPU, CPU, CPU_FLAGS, ARCH, CONTAINER }

    @Override
    public String name() {
        return "env-key-value";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.ENV_KEY_VALUE);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        PlatformDraft platform = new PlatformDraft();
        // a GitHub issue form puts each answer under a "### Question" heading: the heading is the key of the
        // first line below it ("### TensorFlow version", blank, "2.14.0")
        String[] heading = {null};
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            Matcher h = FORM_HEADING.matcher(text);
            if (h.matches()) {
                heading[0] = h.group(1).strip();
                return;
            }
            if (heading[0] != null && !text.isBlank()) {
                String key = heading[0];
                heading[0] = null;
                if (text.indexOf(':') < 0 && KEYS.containsKey(keyOf(key))) {
                    line(input, out, platform, number, text, key + ": " + text.strip());
                    return;
                }
            }
            line(input, out, platform, number, text, text);
        });
        platform.emit(out);
        return out.build();
    }

    /** The normalized key of a key as written. */
    private static String keyOf(String written) {
        String key = VersionText.packageName(written.replace(' ', '-').replace('/', '-'));
        if (!KEYS.containsKey(key)) {
            for (String part : key.split("-(?:and|&)-", 2)) {
                if (KEYS.containsKey(part)) {
                    return part;
                }
            }
        }
        return key;
    }

    /**
     * Reads one line; {@code read} is what to read of it (the line itself, or "Heading: line" under an issue form's
     * heading), the source always cites the line as written.
     */
    private static void line(ParseInput input, ParseResult.Builder out, PlatformDraft platform, long number, String text, String read) {
        if (text.isBlank() || text.length() > 1000 || text.startsWith("#")) {
            return;
        }
        // a Markdown form's bold key ("**Hypervisor:** Proxmox") is a key like any other
        Matcher m = KEY_VALUE.matcher(read.replace("**", ""));
        if (!m.matches()) {
            // a sentence or a bare requirement ("jaxlib==0.1.62"): what its words introduce
            SourceRef ref = input.at(number, text);
            EnvProse.read(text, ref, out, platform, true);
            pins(out, "", text, ref);
            return;
        }
        // "GPU model and memory: RTX 2080", "cuda & cuda-tools: 11.3.0-1": a key of two joined keys states the first
        String key = keyOf(m.group(1));
        String value = m.group(2).strip();
        if (value.isEmpty()) {
            return;
        }
        SourceRef ref = input.at(number, text);
        Key known = KEYS.get(key);
        if (known == null) {
            EnvProse.read(text, ref, out, platform, false);
            String v = VersionText.leading(value);
            if (v != null && !key.isEmpty()) {
                PackageFacts.emit(out, key, v, ORIGIN, ref);
            }
            libraries(out, value, ref);
            pins(out, key, value, ref);
            torchWheelTag(out, key, value, ref);
            return;
        }
        String version = VersionText.leading(value);
        switch (known) {
            case OS -> {
                platform.os(REMARK.matcher(value).replaceAll(""), ref);
                // "Ubuntu 22.04 (WSL2, kernel ...-microsoft-standard-WSL2)": the remark names the real platform
                if ("wsl2".equals(PlatformDraft.familyOf(value))) {
                    platform.family("wsl2", ref);
                }
            }
            case ARCH -> platform.arch(value.split("\\s+")[0], ref);
            case CPU -> {
                // /proc/cpuinfo's "processor : 0" is the CPU's index, not its model
                if (!value.chars().allMatch(Character::isDigit)) {
                    if (key.equals("model-name")) {
                        platform.cpuFromMachine(REMARK.matcher(value).replaceAll(""), ref);
                    } else {
                        platform.cpu(REMARK.matcher(value).replaceAll(""), ref);
                    }
                }
            }
            case CPU_FLAGS -> platform.flags(value, ref);
            case PYTHON -> {
                if (version != null) {
                    out.fact(new VersionFact("python", version, ORIGIN, List.of(ref)));
                    platform.python(version, ref);
                }
            }
            case TENSORFLOW -> {
                PackageFacts.emit(out, key.equals("tensorflow-gpu") ? key : "tensorflow", version, ORIGIN, ref);
                sourceBuild(out, "tensorflow", version, value, ref);
            }
            case TORCH -> {
                PackageFacts.emit(out, "torch", version, ORIGIN, ref);
                sourceBuild(out, "torch", version, value, ref);
                Matcher w = TORCH_WHEEL_INDEX.matcher(value);
                if (version != null && w.find()) {
                    // a wheel from download.pytorch.org/whl/cu113 is a CUDA 11.3 build whatever its version says
                    String base = VersionText.withoutLocal(version);
                    out.fact(w.group(2) != null ? new BuildInfo("torch", base, null, null, true, List.of(ref))
                            : new BuildInfo("torch", base, VersionText.compactCuda(w.group(1).substring(2)), null, false, List.of(ref)));
                }
            }
            case CUDA -> version(out, "cuda-runtime", version, ref);
            case CUDNN -> version(out, "cudnn", version, ref);
            case DRIVER -> version(out, "nvidia-driver", version, ref);
            case GPU -> gpus(out, value, ref);
            case CONTAINER -> {
                // "nvcr.io/nvidia/pytorch:23.09-py3 (docker run without --shm-size)": the image reference is the first word
                String image = value.split("\\s+")[0];
                if (image.indexOf(':') > 0 || image.indexOf('/') > 0) {
                    out.fact(new VersionFact("container-image", image, ORIGIN, List.of(ref)));
                }
            }
        }
        if (known != Key.CUDNN && known != Key.CUDA) {
            libraries(out, value, ref);
        }
        pins(out, key, value, ref);
    }

    /**
     * A framework built from source ({@code tensorflow: 1.4.1 (compiled from source with cuda 9.1 and cudnn 7.1.1)}):
     * {@code <framework>-source-build} = {@code true}, and the CUDA and cuDNN it names as its {@code BuildInfo}, so the
     * checks compare against the build's own versions, never the stock release's table.
     */
    private static void sourceBuild(ParseResult.Builder out, String framework, String version, String value, SourceRef ref) {
        Matcher m = SOURCE_BUILD.matcher(value);
        if (!m.find()) {
            return;
        }
        out.fact(new VersionFact(framework + "-source-build", "true", ORIGIN, List.of(ref)));
        String rest = value.substring(m.end());
        Matcher cuda = SOURCE_CUDA.matcher(rest);
        Matcher cudnn = SOURCE_CUDNN.matcher(rest);
        String cudaVersion = cuda.find() ? cuda.group(1) : null;
        String cudnnVersion = cudnn.find() ? cudnn.group(1) : null;
        if (cudaVersion != null || cudnnVersion != null) {
            out.fact(new BuildInfo(framework, version == null ? null : VersionText.withoutLocal(version), cudaVersion, cudnnVersion,
                    false, List.of(ref)));
        }
    }

    private static void version(ParseResult.Builder out, String component, String version, SourceRef ref) {
        if (version != null) {
            out.fact(new VersionFact(component, version, ORIGIN, List.of(ref)));
        }
    }

    /** Reads {@code RTX 3080 10GB}, {@code 8x V100}, {@code none (CPU only)}, {@code RTX 3090, GTX 1080}. */
    private static void gpus(ParseResult.Builder out, String value, SourceRef ref) {
        String v = REMARK.matcher(value).replaceAll("").strip();
        String lower = v.toLowerCase(Locale.ROOT);
        if (NO_GPU.contains(lower) || lower.startsWith("none") || lower.startsWith("no gpu")) {
            // "no GPU" is evidence too (a CPU-only machine): a count of zero, since there is no device to name
            out.fact(new VersionFact("gpu-count", "0", ORIGIN, List.of(ref)));
            return;
        }
        String[] parts = v.split("\\s*(?:,|;|\\+| and )\\s*", 8);
        for (String part : parts) {
            String name = part.strip();
            Matcher count = GPU_COUNT.matcher(name);
            if (count.matches()) {
                out.fact(new VersionFact("gpu-count", count.group(1), ORIGIN, List.of(ref)));
                name = count.group(2).strip();
            }
            Long mib = null;
            Matcher mem = GPU_MEMORY.matcher(name);
            if (mem.matches() && !mem.group(1).isBlank()) {
                double amount = Double.parseDouble(mem.group(2));
                boolean gib = mem.group(3).toUpperCase(Locale.ROOT).startsWith("G");
                mib = Math.round(gib ? amount * 1024 : amount);
                name = mem.group(1).strip();
            }
            if (!name.isEmpty() && name.chars().anyMatch(Character::isLetterOrDigit)) {
                out.fact(NamedGpu.of(null, name, mib, ref));
            }
        }
    }

    /** Reads versions that library names in a value state ({@code cudnn_cnn_infer64_8.dll} is cuDNN 8). */
    private static void libraries(ParseResult.Builder out, String value, SourceRef ref) {
        String cudnn = VersionText.cudnnFromLibrary(value);
        if (cudnn != null) {
            out.fact(new VersionFact("cudnn", cudnn, ORIGIN + ": library name", List.of(ref)));
        }
        String cuda = VersionText.cudaFromLibrary(value);
        if (cuda != null) {
            out.fact(new VersionFact("cuda-runtime", cuda, ORIGIN + ": library name", List.of(ref)));
        }
    }

    /**
     * Reads a {@code torch-1.8.0+cu111} wheel tag in another package's value ({@code torch_scatter: wheel from
     * .../whl/torch-1.8.0+cu111.html}): that package's binary was built for that torch build, stated as
     * {@code VersionFact(<package>-built-for-torch, 1.8.0+cu111)} (not a {@code BuildInfo}: the checks read those as
     * PyTorch's own build).
     */
    private static void torchWheelTag(ParseResult.Builder out, String key, String value, SourceRef ref) {
        if (key.isEmpty() || key.equals("torch") || !value.contains("torch-")) {
            return;
        }
        Matcher m = TORCH_WHEEL_TAG.matcher(value);
        if (m.find()) {
            out.fact(new VersionFact(key + "-built-for-torch", m.group(1) + "+" + (m.group(3) != null ? "cpu" : "cu" + m.group(2)),
                    ORIGIN + ": wheel tag", List.of(ref)));
        }
    }

    private static void pins(ParseResult.Builder out, String key, String value, SourceRef ref) {
        if (value.indexOf('=') < 0) {
            return;
        }
        Matcher p = PIN.matcher(value);
        int found = 0;
        while (p.find() && found++ < 16) {
            String name = VersionText.packageName(p.group(1));
            // "tensorflow: 2.4.1 (pip install tensorflow==2.4.1)" states the key's own version twice
            if (!name.equals(key) && !(name.startsWith("tensorflow") && KEYS.get(key) == Key.TENSORFLOW)
                    && !((name.equals("torch") || name.equals("pytorch")) && KEYS.get(key) == Key.TORCH)) {
                PackageFacts.emit(out, p.group(1), p.group(2), ORIGIN + ": " + key, ref);
            }
        }
    }
}
