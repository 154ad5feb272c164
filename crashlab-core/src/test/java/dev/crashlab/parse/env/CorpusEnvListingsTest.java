package dev.crashlab.parse.env;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Checks the environment facts read from the real listings in {@code ../shared/corpus/env-listings}
 * against their {@code <name>.expected.json} (sniffed and parsed as the service does), and that every
 * crash bundle's {@code env.txt} (of {@code ../shared/corpus} and, where present, {@code ../shared/corpus-fresh})
 * parses without a parser failure and has a fact for each signal it states.
 *
 * <p>Every expected field counts: a value must be found in a fact; a {@code null} ("Could not collect",
 * "N/A", silent) must stay unknown (no fact may claim a value). Fields not found are listed in
 * {@link #KNOWN_MISSES} with the reason; the test fails when a miss is not listed (a regression) or a listed
 * one is found (then remove it and raise {@link #MIN_MATCHED}).
 */
class CorpusEnvListingsTest {

    private static final Path CORPUS = Path.of("../shared/corpus");
    private static final Path FRESH_BUNDLES = Path.of("../shared/corpus-fresh/crash-bundles");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The fewest expected fields that must be found, of all fields in all expected files. */
    static final int MIN_MATCHED = 218;

    /**
     * Expected fields not found, as {@code file-stem#key}, each with the reason. Only values the file itself does
     * not state may be listed here (issue 11: no explained misses for values the file states).
     */
    static final Map<String, String> KNOWN_MISSES = Map.ofEntries(
            // a headerless middle cut of a conda list (blosc .. cupti): no row is a one-OS package and no path is
            // shown; the expected "Linux" comes from the issue's title, not the file
            Map.entry("conda_list-linux-headerless-cudatoolkit10.1-cudnn7.6.5#os", "the OS is stated by the issue title only"),
            // nvcc 7.5 stamps "CDT" like macOS toolkits (CUDA <= 10.2 shipped for macOS too), so the zone alone
            // does not tell Linux; the other cue is a "user@host:~$" prompt, which macOS and WSL print too
            Map.entry("nvcc-linux-cuda7.5-with-prompt#os", "pre-CUDA-11 time zone stamp and a shell prompt do not state the OS"));

    /**
     * Signals of a bundle's env.txt that no fact kind holds, as {@code bundle: signal}, each with the reason. Only
     * what the environment reader has no place for may be listed (never a version, GPU, OS or CPU the file states).
     */
    static final Map<String, String> SIGNALS_NO_FACT_HOLDS = Map.ofEntries(
            // nvidia-smi's banner line pasted below `nvcc -V` output; the file is read as nvcc output (its only
            // listing), and the nvcc reader reads the toolkit, not a driver banner
            Map.entry("c157: Driver Version: 375.26", "an nvidia-smi banner line inside an nvcc -V paste"),
            // the hypervisor a VM runs on: no fact kind describes virtualisation (the CPU model the VM shows,
            // "Common KVM processor", is read)
            Map.entry("c201: **Hypervisor:** Proxmox", "no fact kind for the hypervisor"),
            // a GPU miner's kernel-launch settings (bfactor / bsleep: how long each kernel runs before it yields);
            // no fact kind for an application's own GPU settings
            Map.entry("c210: \"bfactor\" : 0, \"bsleep\" :  0", "no fact kind for an application's GPU scheduling settings"));

    @Test
    void everyExpectedEnvironmentFactIsFound() throws IOException {
        Path listings = CORPUS.resolve("env-listings");
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus not present: corpus tests run only beside it");
        List<Path> files;
        try (Stream<Path> s = Files.list(listings)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".txt"))
                    .filter(p -> Files.exists(expectedOf(p))).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        int total = 0;
        int matched = 0;
        Set<String> misses = new TreeSet<>();
        StringBuilder report = new StringBuilder();
        for (Path file : files) {
            String stem = file.getFileName().toString().replaceFirst("\\.txt$", "");
            ParseResult result = parse(file);
            JsonNode facts = JSON.readTree(expectedOf(file).toFile()).get("facts");
            int fileTotal = 0;
            int fileMatched = 0;
            List<String> fileMisses = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = facts.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                fileTotal++;
                if (found(field.getKey(), field.getValue(), result.facts())) {
                    fileMatched++;
                } else {
                    fileMisses.add(field.getKey());
                    misses.add(stem + "#" + field.getKey());
                }
            }
            total += fileTotal;
            matched += fileMatched;
            report.append(String.format("%-62s %2d/%2d %s%n", stem, fileMatched, fileTotal,
                    fileMisses.isEmpty() ? "" : "missed " + fileMisses));
        }
        report.append(String.format("TOTAL %d/%d expected fields found (%.1f%%)%n", matched, total, 100.0 * matched / total));
        System.out.print(report);
        Set<String> unexplained = new TreeSet<>(misses);
        unexplained.removeAll(KNOWN_MISSES.keySet());
        Set<String> fixed = new TreeSet<>(KNOWN_MISSES.keySet());
        fixed.removeAll(misses);
        assertThat(unexplained).as("misses not explained in KNOWN_MISSES\n" + report).isEmpty();
        assertThat(fixed).as("KNOWN_MISSES that are now found: remove them and raise MIN_MATCHED").isEmpty();
        assertThat(matched).as("expected fields found\n" + report).isGreaterThanOrEqualTo(MIN_MATCHED);
    }

    @Test
    void everyCrashBundleEnvFileParsesAndCoversItsSignals() throws IOException {
        Path bundles = CORPUS.resolve("crash-bundles");
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus not present: corpus tests run only beside it");
        List<Path> envFiles = new ArrayList<>();
        // the fresh bundles (c151 on) too, where present: their env.txt is what people pasted, not key: value lines
        for (Path folder : List.of(bundles, FRESH_BUNDLES)) {
            if (!Files.isDirectory(folder)) {
                System.out.println(folder + " not present: its env.txt files are not checked");
                continue;
            }
            try (Stream<Path> s = Files.list(folder)) {
                envFiles.addAll(s.map(d -> d.resolve("env.txt")).filter(Files::isRegularFile).sorted().toList());
            }
        }
        assertThat(envFiles).isNotEmpty();
        Map<String, Integer> counts = new TreeMap<>();
        List<String> uncovered = new ArrayList<>();
        int signals = 0;
        for (Path env : envFiles) {
            ParseResult result = parse(env);
            String bundle = env.getParent().getFileName().toString();
            counts.put(bundle, result.facts().size());
            // the meta.json signals quoted from env.txt are the evidence the diagnosis must see from it
            String text = Files.readString(env);
            for (JsonNode signal : JSON.readTree(env.resolveSibling("meta.json").toFile()).path("signals")) {
                if (!text.contains(signal.asText())) {
                    continue;
                }
                signals++;
                boolean covered = result.facts().stream().flatMap(f -> f.sources().stream())
                        .anyMatch(ref -> ref.text().contains(signal.asText()));
                if (!covered) {
                    uncovered.add(bundle + ": " + signal.asText());
                }
            }
        }
        System.out.println("facts per crash-bundle env.txt: " + counts);
        System.out.println("env.txt signals covered by a fact: " + (signals - uncovered.size()) + "/" + signals);
        Set<String> unexplained = new TreeSet<>(uncovered);
        unexplained.removeAll(SIGNALS_NO_FACT_HOLDS.keySet());
        Set<String> nowCovered = new TreeSet<>(SIGNALS_NO_FACT_HOLDS.keySet());
        nowCovered.removeAll(uncovered);
        if (!Files.isDirectory(FRESH_BUNDLES)) {
            nowCovered.removeIf(k -> Integer.parseInt(k.substring(1, k.indexOf(':'))) >= 151);
        }
        assertThat(unexplained).as("env.txt signals no fact's source covers").isEmpty();
        assertThat(nowCovered).as("SIGNALS_NO_FACT_HOLDS that a fact now covers: remove them").isEmpty();
    }

    private static ParseResult parse(Path file) throws IOException {
        String name = file.startsWith(CORPUS) ? CORPUS.relativize(file).toString() : file.getParent().getFileName() + "/" + file.getFileName();
        ArtifactType type = new ArtifactSniffer().sniff(name, file);
        ParseResult result = Parsers.parse(new ParseInput(name, type, file));
        assertThat(result.problems()).as("problems of %s (%s)", name, type)
                .noneMatch(p -> p instanceof ParseProblem.ParserFailure);
        return result;
    }

    private static Path expectedOf(Path txt) {
        return txt.resolveSibling(txt.getFileName().toString().replaceFirst("\\.txt$", ".expected.json"));
    }

    /** Tells whether the facts support the expected field (or, for null, claim nothing for it). */
    static boolean found(String key, JsonNode value, List<Fact> facts) {
        if (value.isNull()) {
            return unknownKept(key, facts);
        }
        String v = value.isTextual() ? value.asText() : value.toString();
        String head = head(v);
        return switch (key) {
            case "os" -> any(facts, Platform.class, p -> p.os() != null && (p.os().equals(v) || p.os().equals(head)
                    || (p.os() + " (" + p.arch() + ")").equals(v)))
                    || familyOnly(head) != null && any(facts, Platform.class, p -> familyOnly(head).equals(p.osFamily())
                            || familyOnly(head).equals("linux") && "wsl2".equals(p.osFamily()));
            case "os_build" -> version(facts, "python-platform", v);
            case "is_wsl" -> any(facts, Platform.class, p -> "wsl2".equals(p.osFamily())) == value.asBoolean();
            case "kernel" -> version(facts, "linux-kernel", v);
            case "libc" -> version(facts, "glibc", v.replaceFirst("^glibc-", ""));
            case "python" -> version(facts, "python", head) || any(facts, Platform.class, p -> head.equals(p.python()));
            case "torch" -> version(facts, "torch", head);
            case "torch_pip_package" -> version(facts, "torch", v);
            case "torch_cuda_build" -> any(facts, BuildInfo.class, b -> b.framework().equals("torch") && v.equals(b.cudaVersion()));
            case "tf_cuda_build" -> any(facts, BuildInfo.class, b -> b.framework().equals("tensorflow") && head.equals(b.cudaVersion()))
                    // "11.x (expects cudart64_110.dll)": TF's loader asking for a CUDA library states the build's CUDA major
                    || head.endsWith(".x") && any(facts, VersionFact.class, f -> f.component().equals("cuda-runtime")
                            && f.origin().startsWith("log: ") && f.origin().endsWith(" library")
                            && f.version().startsWith(head.substring(0, head.length() - 1)));
            case "conda_env_path" -> version(facts, "conda-env-path", v);
            case "tf_cudnn_build" -> any(facts, BuildInfo.class, b -> b.framework().equals("tensorflow") && head.equals(b.cudnnVersion()));
            case "tensorflow" -> version(facts, "tensorflow", head);
            case "cuda_available" -> version(facts, "torch-cuda-available", v);
            case "xpu_available" -> version(facts, "torch-xpu-available", v);
            case "is_debug_build" -> version(facts, "torch-debug-build", v);
            case "cuda_runtime" -> version(facts, "cuda-runtime", head);
            case "cudnn" -> version(facts, "cudnn", head);
            case "cublas" -> version(facts, "cublas", head);
            case "nccl" -> version(facts, "nccl", head);
            case "cupti" -> version(facts, "cupti", head);
            case "cudnn_frontend" -> version(facts, "nvidia-cudnn-frontend", head);
            case "conda_cudatoolkit" -> version(facts, "cudatoolkit", head);
            case "nvidia_driver" -> version(facts, "nvidia-driver", head);
            case "rocm_build" -> version(facts, "rocm", head);
            case "hip_runtime" -> version(facts, "hip-runtime", head);
            case "miopen" -> version(facts, "miopen", head);
            case "cuda_toolkit" -> version(facts, "nvcc", head);
            case "cuda_toolkit_release" -> version(facts, "cuda-toolkit", head);
            case "gcc" -> version(facts, "gcc", head);
            case "cpu" -> any(facts, Platform.class, p -> v.equals(p.cpu()));
            case "gpus" -> {
                boolean all = true;
                for (JsonNode gpu : value) {
                    all &= any(facts, GpuDevice.class, g -> g.name().equals(gpu.asText()));
                }
                yield value.isEmpty() ? none(facts, GpuDevice.class, g -> true) : all;
            }
            case "is_cpu_only_build" -> any(facts, BuildInfo.class, b -> b.cpuOnly() == value.asBoolean());
            case "missing_libraries" -> {
                boolean all = true;
                for (JsonNode lib : value) {
                    all &= any(facts, LibraryLoadFailure.class, l -> lib.asText().equals(l.library()));
                }
                yield all;
            }
            case "tf_cuda_compute_capabilities" -> {
                boolean all = true;
                for (JsonNode arch : value) {
                    all &= version(facts, "tensorflow-cuda-arch", arch.asText());
                }
                yield all;
            }
            case "is_rocm_build" -> version(facts, "tensorflow-rocm-build", v);
            case "is_tensorrt_build" -> version(facts, "tensorflow-tensorrt-build", v);
            case "tf_variant_selector", "cuda_toolkit_component" -> {
                // "name version ..." : the package row as a version fact
                String[] parts = head.split(" ");
                yield parts.length >= 2 && version(facts, VersionText.packageName(parts[0]), parts[1]);
            }
            // no fact carries these: see KNOWN_MISSES
            default -> false;
        };
    }

    /** Tells whether no fact claims a value the expected file says is unknown. */
    private static boolean unknownKept(String key, List<Fact> facts) {
        return switch (key) {
            case "os" -> none(facts, Platform.class, p -> p.os() != null);
            case "torch" -> none(facts, VersionFact.class, f -> f.component().equals("torch") && f.origin().equals("collect_env"));
            case "torch_cuda_build" -> none(facts, BuildInfo.class, b -> b.framework().equals("torch") && b.cudaVersion() != null);
            case "cuda_available" -> none(facts, VersionFact.class, f -> f.component().equals("torch-cuda-available"));
            // a library a log failed to load states the CUDA wanted, not one present (SoftwareStack's convention)
            case "cuda_runtime" -> none(facts, VersionFact.class, f -> f.component().equals("cuda-runtime")
                    && !f.origin().equals("log: missing library"));
            case "cudnn" -> none(facts, VersionFact.class, f -> f.component().equals("cudnn"));
            case "nvidia_driver" -> none(facts, VersionFact.class, f -> f.component().equals("nvidia-driver"));
            case "cpu_avx" -> none(facts, Platform.class, p -> p.cpuFlags().contains("avx"));
            case "is_cpu_only_build" -> none(facts, BuildInfo.class, b -> b.framework().equals("torch"));
            default -> false;
        };
    }

    /** Returns the value without a trailing parenthesised remark ({@code 3.6 (from py36 build strings)} gives {@code 3.6}). */
    private static String head(String v) {
        int paren = v.indexOf(" (");
        return paren > 0 && v.endsWith(")") ? v.substring(0, paren) : v;
    }

    private static String familyOnly(String head) {
        return switch (head) {
            case "Linux" -> "linux";
            case "Windows" -> "windows";
            case "macOS" -> "macos";
            default -> null;
        };
    }

    private static boolean version(List<Fact> facts, String component, String version) {
        return any(facts, VersionFact.class, f -> f.component().equals(component) && f.version().equals(version));
    }

    private static <T extends Fact> boolean any(List<Fact> facts, Class<T> type, Predicate<T> test) {
        return facts.stream().filter(type::isInstance).map(type::cast).anyMatch(test);
    }

    private static <T extends Fact> boolean none(List<Fact> facts, Class<T> type, Predicate<T> test) {
        return !any(facts, type, test);
    }
}
