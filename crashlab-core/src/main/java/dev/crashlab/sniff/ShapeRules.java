package dev.crashlab.sniff;

import static dev.crashlab.sniff.ArtifactType.CONDA_LIST;
import static dev.crashlab.sniff.ArtifactType.ENV_KEY_VALUE;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_CSV;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_QUERY_TEXT;
import static dev.crashlab.sniff.ArtifactType.PIP_FREEZE;
import static dev.crashlab.sniff.ArtifactType.PIP_LIST;

import java.util.List;
import java.util.function.Predicate;

/**
 * Lists the rules for headerless formats, recognised by the shape of most of their lines; the sniffer
 * tries them in order only when no {@link Signatures signature} and no {@link ConsoleMarkers console
 * marker} matched.
 *
 * <p>They come last because a shape is weak evidence: two {@code torch==...} lines inside a crash log
 * do not make it a {@code pip freeze}, which is why each rule wants a majority of the lines.
 */
final class ShapeRules {

    private ShapeRules() {}

    private static final java.util.regex.Pattern COMMA_SPACE = java.util.regex.Pattern.compile(", ");

    /**
     * One shape rule.
     *
     * @param name     a short id for test messages
     * @param type     the type it gives
     * @param example  a sample of the shape it looks for, recognised on its own (checked by a test)
     * @param test     the test over the whole text
     */
    record ShapeRule(String name, ArtifactType type, String example, Predicate<SniffText> test) {}

    /** Holds the rules in the order they are tried, the most specific shape first. */
    static final List<ShapeRule> ALL = List.of(
            new ShapeRule("nvidia-smi-text", NVIDIA_SMI_QUERY_TEXT,
                    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5f2b6e1a-0c4d-4b7e-9a51-3c0e8f6d2a10)",
                    t -> t.anyInWindow(ShapeRules::isNvidiaSmiText)),
            new ShapeRule("pip-freeze", PIP_FREEZE, "torch==2.1.2+cu121",
                    t -> share(t, LineShapes::isPipFreezeRow, 1, 60)),
            new ShapeRule("conda-rows", CONDA_LIST, "cudatoolkit               11.8.0              h6a678d5_0\n"
                            + "cudnn                     8.9.2.26             cuda11_0\n"
                            + "numpy                     1.26.4          py311h64a7726_0",
                    t -> share(t, LineShapes::isCondaRow, 3, 60)),
            new ShapeRule("pip-list-rows", PIP_LIST, "tensorflow                2.10.1\nkeras                     2.10.0\nnumpy                     1.23.5",
                    t -> share(t, LineShapes::isPipListRow, 3, 60)),
            new ShapeRule("query-gpu-noheader", NVIDIA_SMI_CSV, "NVIDIA GeForce RTX 3060, 12288 MiB, 1034 MiB, 00000000:01:00.0",
                    ShapeRules::isQueryGpuRows),
            new ShapeRule("env-rows", ENV_KEY_VALUE, "cudnn: 8.1.0",
                    t -> shareRaw(t, LineShapes::isEnvRow, 1, 80)));

    /**
     * Recognises nvidia-smi text that is neither table nor {@code -q}: {@code -L} and {@code nvlink}
     * listings, the messages it prints for a lost GPU or a missing driver, and section banners of
     * scripted captures ({@code # $ nvidia-smi --version}).
     */
    static boolean isNvidiaSmiText(String l) {
        return (l.startsWith("GPU ") && (l.contains("(UUID: GPU-") || l.contains("(UUID: MIG-")))
                // nvidia-smi prints it at the start of a line; inside a sentence it is someone quoting it
                || l.startsWith("Unable to determine the device handle for GPU")
                || l.startsWith("NVIDIA-SMI has failed because")
                || l.equals("No devices were found")
                || l.startsWith("NVML: Unable to")
                || l.startsWith("NVIDIA System Management Interface -- v")
                || l.startsWith("# $ nvidia-smi") || l.startsWith("# nvidia-smi ");
    }

    /** Tells whether at least {@code min} and at least {@code percent}% of the content lines match. */
    private static boolean share(SniffText t, Predicate<String> row, int min, int percent) {
        List<Integer> lines = t.contentLines(SniffText.SHAPE_NON_BLANK);
        int hits = 0;
        for (int i : lines) {
            if (row.test(t.trimmed(i))) {
                hits++;
            }
        }
        return hits >= min && hits * 100 >= lines.size() * percent;
    }

    /** Like {@link #share} but tests raw lines, for shapes where indentation matters. */
    private static boolean shareRaw(SniffText t, Predicate<String> row, int min, int percent) {
        List<Integer> lines = t.contentLines(SniffText.SHAPE_NON_BLANK);
        int hits = 0;
        for (int i : lines) {
            if (row.test(t.line(i))) {
                hits++;
            }
        }
        return hits >= min && hits * 100 >= lines.size() * percent;
    }

    /** Recognises {@code --format=csv,noheader}: equal-width comma rows carrying MiB values, GPU UUIDs or bus ids. */
    private static boolean isQueryGpuRows(SniffText t) {
        List<Integer> lines = t.contentLines(SniffText.SHAPE_NON_BLANK);
        if (lines.isEmpty()) {
            return false;
        }
        int width = -1;
        for (int i : lines) {
            String[] f = COMMA_SPACE.split(t.trimmed(i), -1);
            if (f.length < 2 || (width >= 0 && f.length != width)) {
                return false;
            }
            width = f.length;
            boolean gpuValue = false;
            for (String v : f) {
                gpuValue |= v.endsWith(" MiB") || v.startsWith("GPU-") || isBusId(v.strip());
            }
            if (!gpuValue) {
                return false;
            }
        }
        return true;
    }

    /** Accepts {@code 00000000:01:00.0}. */
    private static boolean isBusId(String v) {
        if (v.length() != 16 || v.charAt(8) != ':' || v.charAt(11) != ':' || v.charAt(14) != '.') {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (i != 8 && i != 11 && i != 14 && Character.digit(c, 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
