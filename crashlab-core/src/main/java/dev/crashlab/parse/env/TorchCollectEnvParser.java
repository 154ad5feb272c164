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
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PyTorch's {@code python -m torch.utils.collect_env} report (every format from 2019 on: Windows,
 * Linux, WSL2, macOS, ROCm, CPU-only) into versions, the torch build, the platform and the GPUs.
 */
public final class TorchCollectEnvParser implements ArtifactParser {

    @Override
    public String name() {
        return "torch-collect-env";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.TORCH_COLLECT_ENV);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        Report report = new Report(input, out);
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, report::line);
        report.finish();
        return out.build();
    }

    /** The state of one report as its lines go by. */
    private static final class Report {

        private static final String ORIGIN = "collect_env";
        private static final Pattern OS_ARCH = Pattern.compile("^(.*?)\\s*\\((x86_64|arm64|aarch64|AMD64|i386|i686|ppc64le|s390x|armv7l)\\)$");
        private static final Pattern LINUX_PLATFORM = Pattern.compile("^Linux-(.{1,200}?)-(x86_64|aarch64|arm64|ppc64le|s390x)(?:-|$)");
        private static final Pattern MAC_PLATFORM = Pattern.compile("^macOS-[^-]{1,40}-(x86_64|arm64)");
        private static final Pattern GPU_LINE = Pattern.compile("^GPU (\\d{1,3}): (.{1,200}?)(?:\\s*\\(UUID: [^)]{0,80}\\))?$");
        private static final Pattern IS_AVAILABLE = Pattern.compile("^Is (\\w{1,20}) available$");
        private static final Pattern LIBC = Pattern.compile("^(glibc|musl)-(\\S{1,40})$");
        private static final Pattern LIBRARY_ROW = Pattern.compile("^\\[(pip\\d?|conda)\\]\\s+(.*)$");
        private static final Pattern PIN = Pattern.compile("^([A-Za-z0-9][\\w.\\-]{0,100})==(\\S{1,100})$");
        private static final Pattern WINDOWS_PATH = Pattern.compile("^[A-Za-z]:[\\\\/].*");

        private enum Section { MAIN, CPU, LIBRARIES }

        private final ParseInput input;
        private final ParseResult.Builder out;
        private final PlatformDraft platform = new PlatformDraft();
        private Section section = Section.MAIN;
        /** The multi-line key whose continuation lines may follow ({@code gpu} or {@code cudnn}), or null. */
        private String listKey;
        private boolean firstCpuLine;
        private String torch;
        private SourceRef torchRef;
        private String cudaBuild;
        private SourceRef cudaBuildRef;
        private String rocm;
        private SourceRef rocmRef;

        Report(ParseInput input, ParseResult.Builder out) {
            this.input = input;
            this.out = out;
        }

        void line(long number, String raw) {
            String t = raw.strip();
            if (t.isEmpty()) {
                if (section == Section.CPU) {
                    section = Section.MAIN;
                }
                listKey = null;
                return;
            }
            if (t.length() > 1000) {
                return;
            }
            SourceRef ref = input.at(number, raw);
            Matcher lib = LIBRARY_ROW.matcher(t);
            if (lib.matches()) {
                library(lib.group(1), lib.group(2), ref);
                return;
            }
            if (section == Section.CPU) {
                cpu(t, ref);
                return;
            }
            if (t.equals("CPU:")) {
                section = Section.CPU;
                firstCpuLine = true;
                return;
            }
            if (t.startsWith("Versions of relevant libraries")) {
                section = Section.LIBRARIES;
                return;
            }
            if (listKey != null && continuation(t, ref)) {
                return;
            }
            listKey = null;
            int colon = t.indexOf(':');
            if (colon <= 0) {
                return;
            }
            key(t.substring(0, colon).strip(), t.substring(colon + 1).strip(), ref);
        }

        private void key(String key, String value, SourceRef ref) {
            Matcher available = IS_AVAILABLE.matcher(key);
            if (available.matches()) {
                bool("torch-" + available.group(1).toLowerCase(Locale.ROOT) + "-available", value, ref);
                return;
            }
            switch (key) {
                case "PyTorch version" -> {
                    if (!VersionText.unknown(value)) {
                        torch = value.split("\\s+")[0];
                        torchRef = ref;
                        PackageFacts.emit(out, "torch", torch, ORIGIN, ref);
                    }
                }
                case "Is debug build" -> bool("torch-debug-build", value, ref);
                case "CUDA used to build PyTorch" -> {
                    cudaBuild = value;
                    cudaBuildRef = ref;
                }
                case "ROCM used to build PyTorch" -> {
                    if (!VersionText.unknown(value)) {
                        rocm = value;
                        rocmRef = ref;
                        version("rocm", value, ORIGIN + ": build", ref);
                    }
                }
                case "OS" -> os(value, ref);
                case "GCC version" -> version("gcc", VersionText.last(value), ORIGIN, ref);
                case "Clang version" -> version("clang", VersionText.leading(value), ORIGIN, ref);
                case "CMake version" -> version("cmake", VersionText.last(value), ORIGIN, ref);
                case "Libc version" -> {
                    Matcher m = LIBC.matcher(value);
                    if (m.matches()) {
                        version(m.group(1), m.group(2), ORIGIN, ref);
                    }
                }
                case "Python version" -> {
                    String v = VersionText.leading(value);
                    version("python", v, ORIGIN, ref);
                    if (v != null) {
                        platform.python(v, ref);
                    }
                }
                case "Python platform" -> pythonPlatform(value, ref);
                case "CUDA runtime version" -> version("cuda-runtime", VersionText.leading(value), ORIGIN, ref);
                case "GPU models and configuration" -> {
                    listKey = "gpu";
                    if (!VersionText.unknown(value)) {
                        gpu(value, ref);
                    }
                }
                case "Nvidia driver version" -> version("nvidia-driver", VersionText.leading(value), ORIGIN, ref);
                case "cuDNN version" -> {
                    listKey = "cudnn";
                    String v = VersionText.leading(value);
                    version("cudnn", v != null ? v : VersionText.cudnnFromLibrary(value), ORIGIN, ref);
                }
                case "HIP runtime version" -> version("hip-runtime", VersionText.leading(value), ORIGIN, ref);
                case "MIOpen runtime version" -> version("miopen", VersionText.leading(value), ORIGIN, ref);
                default -> { }
            }
        }

        /** Reads a line that continues a multi-line value (more GPUs, more cuDNN library paths). */
        private boolean continuation(String t, SourceRef ref) {
            if (listKey.equals("gpu") && t.startsWith("GPU ")) {
                gpu(t, ref);
                return true;
            }
            if (listKey.equals("cudnn") && (t.startsWith("/") || WINDOWS_PATH.matcher(t).matches())) {
                version("cudnn", VersionText.cudnnFromLibrary(t), ORIGIN, ref);
                return true;
            }
            return false;
        }

        private void gpu(String value, SourceRef ref) {
            Matcher m = GPU_LINE.matcher(value);
            if (m.matches()) {
                out.fact(NamedGpu.of(Integer.parseInt(m.group(1)), m.group(2).strip(), null, ref));
            } else if (value.indexOf(':') < 0) {
                // ROCm and old reports print a bare device name ("Device 66a1")
                out.fact(NamedGpu.of(null, value, null, ref));
            }
        }

        private void os(String value, SourceRef ref) {
            if (VersionText.unknown(value)) {
                return;
            }
            Matcher m = OS_ARCH.matcher(value);
            if (m.matches()) {
                platform.os(m.group(1), ref);
                platform.arch(m.group(2), ref);
            } else {
                platform.os(value, ref);
            }
        }

        private void pythonPlatform(String value, SourceRef ref) {
            if (VersionText.unknown(value)) {
                return;
            }
            version("python-platform", value, ORIGIN, ref);
            Matcher linux = LINUX_PLATFORM.matcher(value);
            Matcher mac = MAC_PLATFORM.matcher(value);
            if (linux.find()) {
                version("linux-kernel", linux.group(1), ORIGIN, ref);
                platform.arch(linux.group(2), ref);
                // WSL2 shows only here: the OS line names the distribution
                boolean wsl = linux.group(1).contains("microsoft-standard") || linux.group(1).contains("WSL");
                platform.family(wsl ? "wsl2" : "linux", ref);
            } else if (mac.find()) {
                platform.arch(mac.group(1), ref);
                platform.family("macos", ref);
            } else if (value.startsWith("Windows")) {
                platform.family("windows", ref);
            }
        }

        private void cpu(String t, SourceRef ref) {
            int sep = firstSeparator(t);
            boolean first = firstCpuLine;
            firstCpuLine = false;
            if (sep < 0) {
                if (first) {
                    // macOS prints only the brand string ("Apple M1")
                    platform.cpu(t, ref);
                }
                return;
            }
            String key = t.substring(0, sep).strip().toLowerCase(Locale.ROOT);
            String value = t.substring(sep + 1).strip();
            switch (key) {
                case "model name", "name" -> platform.cpu(value, ref);
                case "flags" -> platform.flags(value, ref);
                case "architecture" -> platform.arch(switch (value) {
                    // wmic's Win32_Processor.Architecture codes
                    case "0" -> "x86";
                    case "5" -> "arm";
                    case "9" -> "x86_64";
                    case "12" -> "arm64";
                    default -> value.chars().allMatch(Character::isDigit) ? null : value;
                }, ref);
                default -> { }
            }
        }

        private static int firstSeparator(String t) {
            int colon = t.indexOf(':');
            int eq = t.indexOf('=');
            if (colon < 0) {
                return eq;
            }
            return eq < 0 ? colon : Math.min(colon, eq);
        }

        private void library(String kind, String rest, SourceRef ref) {
            if (kind.startsWith("pip")) {
                Matcher m = PIN.matcher(rest.strip());
                if (m.matches()) {
                    PackageFacts.emit(out, m.group(1), m.group(2), ORIGIN + ": pip", ref);
                }
                return;
            }
            CondaRows.Row row = CondaRows.parse(rest);
            if (row != null) {
                CondaRows.emit(out, row, ORIGIN + ": conda", ref);
            }
        }

        private void bool(String component, String value, SourceRef ref) {
            String v = switch (value.toLowerCase(Locale.ROOT)) {
                case "true", "yes" -> "true";
                case "false", "no" -> "false";
                default -> null;
            };
            version(component, v, ORIGIN, ref);
        }

        private void version(String component, String version, String origin, SourceRef ref) {
            if (version != null && !VersionText.unknown(version)) {
                out.fact(new VersionFact(component, version, origin, List.of(ref)));
            }
        }

        /** Adds what needs the whole report: the torch build and the platform. */
        void finish() {
            if (torch != null) {
                String base = VersionText.withoutLocal(torch);
                String build = cudaBuild == null ? null : cudaBuild.strip();
                String buildVersion = VersionText.leading(build);
                if (buildVersion != null) {
                    out.fact(new BuildInfo("torch", base, buildVersion, null, false, List.of(cudaBuildRef)));
                } else if (rocm != null) {
                    out.fact(new BuildInfo("torch", base, null, null, false, List.of(rocmRef)));
                } else if (build != null && (build.equalsIgnoreCase("None") || build.equalsIgnoreCase("Could not collect"))) {
                    // torch.version.cuda is None: a CPU-only build (older reports printed None as "Could not collect")
                    out.fact(new BuildInfo("torch", base, null, null, true, List.of(cudaBuildRef)));
                }
            }
            platform.emit(out);
        }
    }
}
