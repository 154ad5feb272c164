package dev.crashlab.sniff;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks that every real-world sample in {@code ../shared/corpus} and every bundle file in
 * {@code ../shared/corpus-fresh/crash-bundles} gets the type its folder and name say.
 *
 * <p>What the samples look like (read before changing a rule):
 * <ul>
 *   <li>{@code crash-bundles/*}/crash.log: anonymised program output, often a single line (a bare
 *       "Killed", one exception line, an IDE exit-code line, a Chinese IDE exit message); some start
 *       mid-traceback, one is mostly lshw output ending in a fatal Python error, two carry no console
 *       marker at all and are typed by their name. {@code env.txt}: unindented lower-case
 *       {@code key: value} lines, sometimes a single line.
 *   <li>{@code env-listings}: {@code collect_env} reports often start with a shell prompt and runtime
 *       warnings (up to eight lines before the header), one has no header line at all, one is
 *       e-mail-wrapped; {@code conda list} with and without the environment header (one is a headerless
 *       middle cut), old-style {@code <pip>} builds and empty channel columns; {@code pip list} with a
 *       prompt and dashes, or a bare headerless fragment; {@code nvcc} with prompts and trailing gcc
 *       output; TF build info as a pretty-printed OrderedDict; lines cut mid-word.
 *   <li>{@code eventlog-text}: details text indented by 2 or 4 spaces, {@code > }-quoted, or inside an
 *       HTML code box; {@code wevtutil} text with its command line; Get-WinEvent lists hard-wrapped, one
 *       in German; message-only pastes (Application Error, WER, nvlddmkm "description not found"), one in
 *       Chinese, one a four-line summary; Save-as CSV / tab-delimited headers; XML with single-quoted
 *       attributes on one line, and an XML view with tabs.
 *   <li>{@code evtx}: all 28 keep an intact {@code ElfFile} header, including the deliberately broken
 *       ones (bad chunk magic, bad checksums, ...); the sniffer reads only the magic.
 *   <li>{@code nvidia-smi}: tables from 2012 to 2026 layouts, some behind a shell prompt; {@code -q}
 *       text behind a prompt; XML with and without DOCTYPE; CSV headers up to 6,500 characters long
 *       (one file lacks its final newline); snippets and whole multi-command captures (see below).
 *   <li>{@code model-configs}: one-line and pretty-printed Keras JSON, TF.js {@code model.json};
 *       summaries in Keras 2 and 3 styles, wrapped, inside Python comments or a whitespace-collapsed
 *       docstring; PyTorch cuDNN failure output, one of them only the repro snippet.
 * </ul>
 *
 * <p>Files that genuinely belong to another type than their folder suggests are listed in
 * {@link #PER_FILE}, each with its reason. All mismatches are reported in one failure.
 */
class CorpusSniffTest {

    private static final Path CORPUS = Path.of("../shared/corpus");
    /** The bundles collected after the rules were written (c151 on); their paths are written {@code fresh:crash-bundles/...}. */
    private static final Path FRESH = Path.of("../shared/corpus-fresh");
    private static final String FRESH_PREFIX = "fresh:";

    /**
     * The types a fresh bundle's {@code env.txt} may have. Unlike the corpus's {@code key: value} lines, these are
     * what people pasted into the issue: a {@code collect_env} report, {@code pip list} / {@code pip freeze} rows,
     * {@code nvcc -V}, or versions in prose (read as an environment listing by name). Each is an environment listing.
     */
    private static final Set<ArtifactType> ENVIRONMENT_LISTINGS = Set.of(ArtifactType.ENV_KEY_VALUE, ArtifactType.TORCH_COLLECT_ENV,
            ArtifactType.PIP_LIST, ArtifactType.PIP_FREEZE, ArtifactType.CONDA_LIST, ArtifactType.NVCC_VERSION, ArtifactType.TF_BUILD_INFO);

    /** Per-file expectations, overriding the folder rule; each says why. */
    private static final Map<String, ArtifactType> PER_FILE = Map.ofEntries(
            // A PyCharm run: TF library-loading log lines, a printed version string and the IDE's exit line.
            // Its folder collects version evidence, but the content is console output.
            Map.entry("env-listings/tf_version-win-2.9.1-cudart64_110-missing.txt", ArtifactType.CONSOLE_LOG),
            // Multi-command sample captures: a "--list-gpus" line, then the --query-gpu CSV (header + row),
            // then help prose. The only tabular data is the CSV, which a CSV reader finds by its header.
            Map.entry("nvidia-smi/raw-captures/nvidia_gpu_exporter__samples__output_ubuntu_20.04_v465.27.txt", ArtifactType.NVIDIA_SMI_CSV),
            Map.entry("nvidia-smi/raw-captures/nvidia_gpu_exporter__samples__output_win10_v466.63.txt", ArtifactType.NVIDIA_SMI_CSV),
            // snippets/: partial outputs of several kinds, so no folder rule.
            // "nvlink --status" output (a -L style GPU line plus link lines or an NVML message): nvidia-smi text.
            Map.entry("nvidia-smi/snippets/azurehpc-health-checks__bad_nvlink_status.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            Map.entry("nvidia-smi/snippets/azurehpc-health-checks__good_nvlink_status.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            // "-q -d PAGE_RETIREMENT" style output with the NVSMI LOG banner.
            Map.entry("nvidia-smi/snippets/azurehpc-health-checks__bad_nvsmi8_output.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            Map.entry("nvidia-smi/snippets/azurehpc-health-checks__orig_nvsmi8_output.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            // A 2014 default table behind a shell prompt, cut at the process section.
            Map.entry("nvidia-smi/snippets/cbio-cluster-issue39__3x-gtx-titan_325.15_lost-gpu_truncated.txt", ArtifactType.NVIDIA_SMI_TABLE),
            // The messages nvidia-smi prints for a lost GPU, with '#' source comments between them.
            Map.entry("nvidia-smi/snippets/nvidia-smi-error-messages_from-issues.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            // dmesg -T lines with an Xid and a kernel stack: a kernel log, not nvidia-smi output.
            Map.entry("nvidia-smi/snippets/open-gpu-kernel-modules-issue446__xid119-gsp-timeout_dmesg.log", ArtifactType.KERNEL_LOG),
            // -q excerpts (one with its header and "[...]" elisions, one only an indented ECC block).
            Map.entry("nvidia-smi/snippets/stas00-ml-engineering__q-excerpt_a100-80gb_510.73.08_remapped-rows-pending_dram-correctable-177.txt",
                    ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            Map.entry("nvidia-smi/snippets/stas00-ml-engineering__q-excerpt_ecc-sram-uncorrectable-volatile1-aggregate5.txt",
                    ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            // A GitHub issue form whose "Hardware: GPU" section pastes `nvidia-smi -L` lines (GPU n: ... (UUID: GPU-...)):
            // the only machine output in it is nvidia-smi text, read by the -q/-L parser.
            Map.entry(FRESH_PREFIX + "crash-bundles/c204/env.txt", ArtifactType.NVIDIA_SMI_QUERY_TEXT),
            // A single bare "NVRM: Xid" kernel line without timestamp.
            Map.entry("nvidia-smi/snippets/stas00-ml-engineering__xid63-row-remapper.log", ArtifactType.KERNEL_LOG));

    private static List<String> samples;

    @BeforeAll
    static void listCorpus() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus not present: corpus sniff test skipped");
        try (Stream<Path> files = Files.walk(CORPUS)) {
            samples = files.filter(Files::isRegularFile)
                    .map(p -> CORPUS.relativize(p).toString().replace('\\', '/'))
                    .filter(CorpusSniffTest::isSample)
                    .sorted()
                    .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        }
        if (!Files.isDirectory(FRESH.resolve("crash-bundles"))) {
            System.out.println("../shared/corpus-fresh not present: only ../shared/corpus is sniffed");
            return;
        }
        try (Stream<Path> files = Files.walk(FRESH.resolve("crash-bundles"))) {
            files.filter(Files::isRegularFile)
                    .map(p -> FRESH_PREFIX + FRESH.relativize(p).toString().replace('\\', '/'))
                    .filter(CorpusSniffTest::isSample)
                    .sorted()
                    .forEach(samples::add);
        }
    }

    /** The file of a sample path ({@code fresh:} ones under corpus-fresh). */
    private static Path file(String rel) {
        return rel.startsWith(FRESH_PREFIX) ? FRESH.resolve(rel.substring(FRESH_PREFIX.length())) : CORPUS.resolve(rel);
    }

    @Test
    void everySampleGetsTheTypeItsFolderSays() throws IOException {
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<String> failures = new ArrayList<>();
        Map<ArtifactType, Integer> counts = new TreeMap<>();
        for (String rel : samples) {
            ArtifactType expected = expected(rel);
            if (expected == null) {
                failures.add(rel + ": no expectation (new folder or snippet? add a rule or a PER_FILE entry)");
                continue;
            }
            ArtifactType actual = sniffer.sniff(rel, file(rel));
            counts.merge(expected, 1, Integer::sum);
            boolean freshEnv = rel.startsWith(FRESH_PREFIX) && rel.endsWith("/env.txt") && !PER_FILE.containsKey(rel);
            if (freshEnv ? !ENVIRONMENT_LISTINGS.contains(actual) : actual != expected) {
                failures.add(rel + ": expected " + expected + ", got " + actual);
            }
        }
        for (String rel : PER_FILE.keySet()) {
            if (!samples.contains(rel) && (!rel.startsWith(FRESH_PREFIX) || Files.isDirectory(FRESH))) {
                failures.add(rel + ": listed in PER_FILE but not in the corpus (stale entry)");
            }
        }
        assertTrue(samples.size() > 100, "only " + samples.size() + " samples found under " + CORPUS.toAbsolutePath());
        assertTrue(failures.isEmpty(), failures.size() + " of " + samples.size() + " corpus samples mistyped:\n  "
                + String.join("\n  ", failures) + "\nchecked per type: " + counts);
    }

    @Test
    void textSamplesKeepTheirTypeWhenReencoded() throws IOException {
        // Windows tools write UTF-16 (with or without BOM), editors add a UTF-8 BOM, and CRLF line ends:
        // none of that may change a verdict. Each variant is cut to the head, as an upload would be.
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<String> failures = new ArrayList<>();
        for (String rel : samples) {
            if (rel.endsWith(".evtx")) {
                continue;
            }
            byte[] bytes = Files.readAllBytes(file(rel));
            ArtifactType original = sniffer.sniff(rel, bytes);
            String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            Encodings.variants(text).forEach((encoding, variant) -> {
                ArtifactType t = sniffer.sniff(rel, Encodings.head(variant));
                if (t != original) {
                    failures.add(rel + " as " + encoding + ": " + original + " became " + t);
                }
            });
        }
        assertTrue(failures.isEmpty(), failures.size() + " re-encoded samples changed type:\n  " + String.join("\n  ", failures));
    }

    /** Excludes the corpus's documentation, truth files and reference dumps, which are not uploads. */
    private static boolean isSample(String rel) {
        String name = rel.substring(rel.lastIndexOf('/') + 1);
        return !name.equals("README.md") && !name.equals("SOURCES.md") && !name.endsWith(".expected.json")
                && !name.equals("meta.json") && !rel.startsWith("evtx/reference/");
    }

    /** Returns the type a sample's folder and name say it has, or null when no rule covers it. */
    static ArtifactType expected(String rel) {
        ArtifactType perFile = PER_FILE.get(rel);
        if (perFile != null) {
            return perFile;
        }
        String[] parts = (rel.startsWith(FRESH_PREFIX) ? rel.substring(FRESH_PREFIX.length()) : rel).split("/");
        String name = parts[parts.length - 1];
        return switch (parts[0]) {
            case "crash-bundles" -> switch (name) {
                case "crash.log" -> ArtifactType.CONSOLE_LOG;
                case "env.txt" -> ArtifactType.ENV_KEY_VALUE;
                default -> null;
            };
            case "env-listings" -> byPrefix(name);
            case "eventlog-text" -> name.endsWith(".xml") ? ArtifactType.EVENTLOG_XML
                    : name.endsWith(".csv") ? ArtifactType.EVENTLOG_CSV
                    : name.endsWith(".txt") ? ArtifactType.EVENTLOG_TEXT : null;
            case "evtx" -> name.endsWith(".evtx") ? ArtifactType.EVTX : null;
            case "model-configs" -> name.endsWith(".json") ? ArtifactType.KERAS_MODEL_JSON
                    : name.contains("-summary-") ? ArtifactType.KERAS_MODEL_SUMMARY
                    : name.startsWith("pytorch-cudnn-") ? ArtifactType.CONSOLE_LOG : null;
            case "nvidia-smi" -> parts.length < 3 ? null : switch (parts[1]) {
                case "table" -> ArtifactType.NVIDIA_SMI_TABLE;
                case "query-text" -> ArtifactType.NVIDIA_SMI_QUERY_TEXT;
                case "xml" -> ArtifactType.NVIDIA_SMI_XML;
                case "csv" -> ArtifactType.NVIDIA_SMI_CSV;
                // Whole multi-command captures: a header of key/value lines, then "--version" output in the
                // padded "Key : value" form of -q, help text, and (beyond the 64 KiB head) the table, -q and
                // CSV sections. As a whole they are nvidia-smi text, read by the -q parser.
                case "raw-captures" -> ArtifactType.NVIDIA_SMI_QUERY_TEXT;
                default -> null; // snippets/: per file only
            };
            default -> null;
        };
    }

    private static ArtifactType byPrefix(String name) {
        if (name.startsWith("collect_env-")) {
            return ArtifactType.TORCH_COLLECT_ENV;
        } else if (name.startsWith("conda_list-")) {
            return ArtifactType.CONDA_LIST;
        } else if (name.startsWith("nvcc-")) {
            return ArtifactType.NVCC_VERSION;
        } else if (name.startsWith("pip_list-")) {
            return ArtifactType.PIP_LIST;
        } else if (name.startsWith("pip_freeze-")) {
            return ArtifactType.PIP_FREEZE;
        } else if (name.startsWith("tf_build_info-")) {
            return ArtifactType.TF_BUILD_INFO;
        }
        return null;
    }
}
