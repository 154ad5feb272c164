package dev.crashlab.parse.console;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.VersionFact;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what a log says about the environment: cuDNN runtime versus compiled-with versions, the devices TF
 * created or found, the driver version the kernel reported, {@code name==version} lines, CUDA/cuDNN
 * versions in library paths, the CPU flags TF's AVX hint names, and the OS a line proves: a Windows interpreter path, WSL2's
 * driver folder {@code /usr/lib/wsl/lib}, {@code /dev/dxg} or kernel; and the answers of a GitHub issue form pasted above
 * the log (TensorFlow's template: {@code ### TensorFlow version}, a blank line, {@code 2.13.0}), which name the
 * framework version, the OS and the GPU the job ran with.
 */
final class EnvironmentRule {

    private static final Pattern CUDNN_TF = Pattern.compile(
            "Loaded runtime CuDNN library: (\\d{1,6}(?:\\.\\d{1,6}){0,3})(?: \\(compatibility version [\\d.]{1,20}\\))? but source was compiled with:? (\\d{1,6}(?:\\.\\d{1,6}){0,3})");
    // PyTorch 1.3+: "cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0, 3)" (1.12+:
    // "compiled  against (..) but found runtime version (..)"); PyTorch 0.x-1.2: "cuDNN version mismatch: PyTorch was compiled
    // against 7102 but linked against 7605" (torch/backends/cudnn/__init__.py of each release)
    private static final Pattern CUDNN_TORCH = Pattern.compile(
            "cuDNN version (?:incompatibility|mismatch): PyTorch was compiled {1,2}against (?:\\((\\d{1,3}), ?(\\d{1,3}), ?(\\d{1,3})\\)|(\\d{4,5}))"
                    + " but (?:linked against|found runtime version) (?:\\((\\d{1,3}), ?(\\d{1,3}), ?(\\d{1,3})\\)|(\\d{4,5}))");
    // nvcc -V pasted into a log: the CUDA toolkit the machine has (the same line NvccVersionParser reads from a file of its own)
    private static final Pattern NVCC_RELEASE = Pattern.compile("Cuda compilation tools, release (\\d{1,3}\\.\\d{1,3}), V\\d{1,3}\\.\\d{1,3}\\.\\d{1,6}");
    private static final Pattern CREATED = Pattern.compile(
            "Created (?:TensorFlow )?device \\S{0,200}?GPU:(\\d{1,3})\\S{0,20} with (\\d{1,9}) MB memory\\)?:? {0,3}-> device: (\\d{1,3}),"
                    + " name: (.{1,200}?), pci bus id: ([0-9a-fA-F:.]{1,40})(?:, compute capability: (\\d{1,2}\\.\\d{1,2}))?");
    private static final Pattern FOUND_TF1 = Pattern.compile(
            "name: (.{1,200}?) major: (\\d{1,2}) minor: (\\d{1,2}) memoryClockRate\\(GHz\\): ?[\\d.]{1,10} pciBusID:? ?([0-9a-fA-F:.]{1,40})"
                    + "(?: totalMemory: ([\\d.]{1,12})(GiB|MiB))?");
    private static final Pattern FOUND_TF2 = Pattern.compile(
            "pciBusID: ([0-9a-fA-F:.]{1,40}) name: (.{1,200}?) computeCapability: (\\d{1,2}\\.\\d{1,2})"
                    + "(?: coreClock: \\S{1,20} coreCount: \\d{1,6} deviceMemorySize: ([\\d.]{1,12})(GiB|MiB))?");
    private static final Pattern KERNEL_DRIVER = Pattern.compile("kernel reported version is: ?(\\d{2,4}\\.\\d{1,3}(?:\\.\\d{1,3})?)");
    private static final Pattern PIN = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9_.\\-]{0,100})==([0-9][\\w.+!\\-]{0,60})$");
    private static final Pattern PATH_VERSION = Pattern.compile(
            "(?i)[/\\\\](cudnn|cuda)[-_/\\\\]?v?(\\d{1,2}\\.\\d{1,2}(?:\\.\\d{1,3}){0,2})(?=[/\\\\;:\\-_]|$)");
    private static final Pattern AVX_HINT = Pattern.compile(
            "(?:Your CPU supports instructions that this TensorFlow binary was not compiled to use|To enable the following instructions)"
                    + ":? ((?:[A-Z][A-Z0-9_.]{1,20} ?){1,20})");

    // "TensorFlow version: 2.9.1", "torch version 2.1.0+cu121", "torch.__version__ = 1.13.1", "Python version: 3.10.12"
    private static final Pattern PRINTED_VERSION = Pattern.compile(
            "^\\s{0,8}(?i:(tensorflow|tf|pytorch|torch|keras|jax|numpy|python))(?:\\.__version__| version)\\s{0,4}[:=]?\\s{0,4}"
                    + "v?(\\d{1,3}\\.\\d{1,4}(?:\\.\\d{1,6})?(?:[\\w.+-]{0,40}))\\s*$");
    // an interpreter started from a Windows path: "C:\Users\me\venv\Scripts\python.exe C:/x/train.py"
    private static final Pattern WINDOWS_PYTHON = Pattern.compile("(?i)(?:^|[\\s\"'])[A-Z]:[\\\\/][^\"'|]{0,400}?[\\\\/]python[w\\d.]{0,5}\\.exe\\b");
    // what exists only inside WSL2: the driver's user-mode libraries Windows mounts there, the paravirtual GPU device, its kernel
    private static final Pattern WSL = Pattern.compile("/usr/lib/wsl/(?:lib|drivers)\\b|/dev/dxg\\b|\\d-microsoft-standard-WSL2\\b");
    // TF's loader naming the CUDA libraries it wants: the build is a GPU build, whatever this machine has
    private static final Pattern TF_DSO = Pattern.compile(
            "(?:tensorflow|tsl|xla)/\\S{0,200}dso_loader\\.cc:\\d{1,6}\\] (?:Successfully opened dynamic library|Could not load dynamic library) '?(?:lib)?(cudart|cudnn|cublas)");

    // a GitHub issue form's question (TensorFlow's bug template): its answer is the next line that is not blank
    private static final Pattern FORM_HEADING = Pattern.compile(
            "^#{2,4} {1,4}(TensorFlow version|OS platform and distribution|GPU model and memory|Python version) {0,4}$",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern FORM_VERSION = Pattern.compile("(?<![\\d.])v?(\\d{1,3}\\.\\d{1,4}(?:\\.\\d{1,6})?)(?![\\w])");
    private static final Pattern FORM_WSL = Pattern.compile("(?i)\\bwsl");
    private static final Pattern FORM_WINDOWS = Pattern.compile("(?i)\\bwin(?:dows)?(?:\\b|\\d)");
    private static final Pattern FORM_LINUX = Pattern.compile("(?i)\\b(?:linux|ubuntu|debian|centos|fedora|rhel|red hat|arch|rocky|suse)\\b");
    private static final Pattern FORM_MACOS = Pattern.compile("(?i)\\b(?:macos|mac os|os x|osx|darwin)\\b");
    private static final Pattern FORM_NVIDIA = Pattern.compile(
            "(?i)nvidia|geforce|quadro|tesla|titan|\\brtx\\b|\\bgtx\\b|\\b[ahlvtpk]\\d{2,3}\\b");
    private static final Pattern FORM_OTHER_GPU = Pattern.compile("(?i)\\b(?:intel|amd|radeon|apple|none|n/a|cpu only|no gpu)\\b");

    /** The issue-form question whose answer the next line that is not blank is, or null. */
    private String formQuestion;

    /** Every literal one of this rule's checks needs (the reading pass's prefilter looks for these first). */
    static final String[] LITERALS = {"Loaded runtime CuDNN library", "cuDNN version incompatibility", "cuDNN version mismatch",
        "Cuda compilation tools", "Created ", "memoryClockRate",
        "computeCapability: ", "kernel reported version is",
        // a pinned requirement (PIN) has a digit right after "==": a progress bar's "[=====]" is no candidate
        "==0", "==1", "==2", "==3", "==4", "==5", "==6", "==7", "==8", "==9", "cuda", "CUDA", "cudnn", "TensorFlow binary",
        "To enable the following instructions", "version", ".exe", "dso_loader", "/usr/lib/wsl/", "/dev/dxg",
        "-microsoft-standard-WSL2", "## "};

    /** Tells whether this rule waits for the next line whatever it holds (an issue form's answer). */
    boolean armed() {
        return formQuestion != null;
    }

    /** Reads the environment facts the line states. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        Matcher m;
        if (formQuestion != null) {
            if (t.isBlank()) {
                return;
            }
            String question = formQuestion;
            formQuestion = null;
            if (!t.startsWith("#")) {
                formAnswer(line, question, t.strip(), out);
                return;
            }
        }
        if (t.startsWith("##") && t.length() < 100) {
            m = FORM_HEADING.matcher(t.strip());
            if (m.matches()) {
                formQuestion = m.group(1).toLowerCase(Locale.ROOT);
                return;
            }
        }
        if (t.contains("version") && t.length() < 200) {
            m = PRINTED_VERSION.matcher(t);
            if (m.matches()) {
                String who = m.group(1).toLowerCase(Locale.ROOT);
                String component = switch (who) {
                    case "tf" -> "tensorflow";
                    case "pytorch" -> "torch";
                    default -> who;
                };
                version(line, component, m.group(2), "log: printed version", out);
            }
        }
        if (t.contains(".exe") && t.indexOf(':') > 0) {
            m = WINDOWS_PYTHON.matcher(t);
            if (m.find()) {
                out.add(new Platform(null, "windows", null, null, null, List.of(), List.of()), line.ref());
            }
        }
        if (t.contains("/usr/lib/wsl/") || t.contains("/dev/dxg") || t.contains("-microsoft-standard-WSL2")) {
            m = WSL.matcher(t);
            if (m.find()) {
                out.add(new Platform(null, "wsl2", null, null, null, List.of(), List.of()), line.ref());
            }
        }
        if (t.contains("dso_loader")) {
            m = TF_DSO.matcher(t);
            if (m.find()) {
                out.add(new BuildInfo("tensorflow", null, null, null, false, List.of()), line.ref());
            }
        }
        if (t.contains("Loaded runtime CuDNN library")) {
            m = CUDNN_TF.matcher(t);
            if (m.find()) {
                version(line, "cudnn", cudnnVersion(m.group(1)), "log: runtime", out);
                version(line, "cudnn", cudnnVersion(m.group(2)), "log: compiled with", out);
            }
        }
        if (t.contains("cuDNN version incompatibility") || t.contains("cuDNN version mismatch")) {
            m = CUDNN_TORCH.matcher(t);
            if (m.find()) {
                String compiled = m.group(4) != null ? cudnnVersion(m.group(4)) : m.group(1) + "." + m.group(2) + "." + m.group(3);
                String runtime = m.group(8) != null ? cudnnVersion(m.group(8)) : m.group(5) + "." + m.group(6) + "." + m.group(7);
                version(line, "cudnn", compiled, "log: compiled with", out);
                version(line, "cudnn", runtime, "log: runtime", out);
            }
        }
        if (t.contains("Cuda compilation tools")) {
            m = NVCC_RELEASE.matcher(t);
            if (m.find()) {
                version(line, "cuda-toolkit", m.group(1), "log: nvcc -V", out);
            }
        }
        if (t.contains("Created ") && t.contains("device")) {
            m = CREATED.matcher(t);
            if (m.find()) {
                gpu(line, Integer.parseInt(m.group(3)), m.group(4), m.group(5), Long.parseLong(m.group(2)), m.group(6), out);
            }
        }
        if (t.contains("memoryClockRate")) {
            m = FOUND_TF1.matcher(t);
            if (m.find()) {
                gpu(line, null, m.group(1), m.group(4), mib(m.group(5), m.group(6)), m.group(2) + "." + m.group(3), out);
            }
        }
        if (t.contains("computeCapability: ")) {
            m = FOUND_TF2.matcher(t);
            if (m.find()) {
                gpu(line, null, m.group(2), m.group(1), mib(m.group(4), m.group(5)), m.group(3), out);
            }
        }
        if (t.contains("kernel reported version is")) {
            m = KERNEL_DRIVER.matcher(t);
            if (m.find()) {
                version(line, "nvidia-driver", m.group(1), "log: kernel driver", out);
            }
        }
        if (t.contains("==") && t.length() < 200) {
            m = PIN.matcher(t.strip());
            if (m.matches()) {
                version(line, m.group(1).toLowerCase(Locale.ROOT).replace('_', '-'), m.group(2), "log: pinned requirement", out);
            }
        }
        if ((t.contains("cuda") || t.contains("CUDA") || t.contains("cudnn")) && (t.indexOf('/') >= 0 || t.indexOf('\\') >= 0)) {
            m = PATH_VERSION.matcher(t);
            int found = 0;
            while (m.find() && found++ < 8) {
                String component = m.group(1).toLowerCase(Locale.ROOT).equals("cudnn") ? "cudnn" : "cuda-runtime";
                version(line, component, m.group(2), "log: library path", out);
            }
        }
        if (t.contains("TensorFlow binary") || t.contains("To enable the following instructions")) {
            m = AVX_HINT.matcher(t);
            if (m.find()) {
                List<String> flags = new ArrayList<>();
                for (String f : m.group(1).strip().split(" ")) {
                    if (!f.isBlank() && !f.equals("in")) {
                        flags.add(f.replace(",", "").toLowerCase(Locale.ROOT));
                    }
                }
                out.add(new Platform(null, null, null, null, null, flags, List.of()), line.ref());
            }
        }
    }

    /** Reads an issue form's answer: the version, OS or GPU the reporter wrote under the question. */
    private static void formAnswer(ConsoleLine line, String question, String answer, FactSink out) {
        if (answer.length() > 200) {
            return;
        }
        switch (question) {
            case "tensorflow version", "python version" -> {
                Matcher v = FORM_VERSION.matcher(answer);
                if (v.find()) {
                    version(line, question.startsWith("tensorflow") ? "tensorflow" : "python", v.group(1), "log: issue form", out);
                }
            }
            case "os platform and distribution" -> {
                String family = FORM_WSL.matcher(answer).find() ? "wsl2"
                        : FORM_WINDOWS.matcher(answer).find() ? "windows"
                        : FORM_MACOS.matcher(answer).find() ? "macos"
                        : FORM_LINUX.matcher(answer).find() ? "linux" : null;
                if (family != null) {
                    out.add(new Platform(answer, family, null, null, null, List.of(), List.of()), line.ref());
                }
            }
            case "gpu model and memory" -> {
                if (FORM_NVIDIA.matcher(answer).find() && !FORM_OTHER_GPU.matcher(answer).find()) {
                    gpu(line, null, answer, null, null, null, out);
                }
            }
            default -> { }
        }
    }

    private static void version(ConsoleLine line, String component, String version, String origin, FactSink out) {
        out.add(new VersionFact(component, version, origin, List.of()), line.ref());
    }

    private static void gpu(ConsoleLine line, Integer index, String name, String busId, Long memoryMiB, String cc, FactSink out) {
        out.add(new GpuDevice(index, name.strip(), null, busId, memoryMiB, null, null, null, cc, null, null, null, null,
                null, null, null, null, null, List.of(), Map.of(), List.of()), line.ref());
    }

    private static Long mib(String amount, String unit) {
        if (amount == null) {
            return null;
        }
        try {
            double v = Double.parseDouble(amount);
            return Math.round("GiB".equals(unit) ? v * 1024 : v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // TF 1.x printed cuDNN versions as numbers: 7102 is 7.1.2 (major * 1000 + minor * 100 + patch)
    // (cuDNN 9 counts major * 10000 + minor * 100 + patch: 90100 is 9.1.0)
    private static String cudnnVersion(String v) {
        if (v.indexOf('.') < 0 && v.length() == 4) {
            return v.charAt(0) + "." + v.charAt(1) + "." + Integer.parseInt(v.substring(2));
        }
        if (v.indexOf('.') < 0 && v.length() == 5) {
            return v.charAt(0) + "." + Integer.parseInt(v.substring(1, 3)) + "." + Integer.parseInt(v.substring(3));
        }
        return v;
    }
}
