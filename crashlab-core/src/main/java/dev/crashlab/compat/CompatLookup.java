package dev.crashlab.compat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.kb.Versions;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Answers the questions the checks ask of the compat tables (which build, which driver floor, which compute capability). */
final class CompatLookup {

    private static final Pattern NVIDIA_NAME = Pattern.compile(
            "(?i)nvidia|geforce|quadro|tesla|titan|\\brtx\\b|\\bgtx\\b|\\b[ahlvtpk]\\d{2,3}\\b|\\bgb?\\d{3}\\b|jetson|dgx");

    private CompatLookup() {}

    /** The TF build row for a version (matched by major.minor) on a platform (null: the Linux row, else any). */
    static Row tensorflowBuild(CompatData data, String version, String platform) {
        String mm = Versions.majorMinor(version);
        Row any = null;
        for (Row r : data.rows(CompatData.TENSORFLOW_BUILDS)) {
            if (!mm.equals(Versions.majorMinor(r.get("tensorflow")))) {
                continue;
            }
            if (platform != null && platform.equalsIgnoreCase(r.get("platform"))) {
                return r;
            }
            if (any == null || "linux".equalsIgnoreCase(r.get("platform"))) {
                any = r;
            }
        }
        return platform != null && "windows".equals(platform) ? null : any;
    }

    /** The PyTorch wheel row for a version and CUDA variant ({@code 11.8} or {@code cpu}); null cuda: any row of the version. */
    static Row torchWheel(CompatData data, String version, String cuda) {
        String mm = Versions.majorMinor(version);
        Row any = null;
        for (Row r : data.rows(CompatData.PYTORCH_WHEELS)) {
            if (!mm.equals(Versions.majorMinor(r.get("torch")))) {
                continue;
            }
            if (cuda != null && Versions.compare(Versions.majorMinor(cuda), Versions.majorMinor(r.get("cuda"))) instanceof Integer c && c == 0) {
                return r;
            }
            if (any == null) {
                any = r;
            }
        }
        return cuda == null ? any : null;
    }

    /** The GPU's compute capability: as reported, else from the name table (first matching pattern); null if unknown. */
    static String computeCapability(CompatData data, GpuDevice g) {
        if (g.computeCapability() != null && !g.computeCapability().isBlank()) {
            return g.computeCapability();
        }
        if (g.name() == null) {
            return null;
        }
        for (Row r : data.rows(CompatData.GPU_COMPUTE_CAPABILITY)) {
            try {
                if (Pattern.compile(r.get("pattern"), Pattern.CASE_INSENSITIVE).matcher(g.name()).find()) {
                    return r.get("compute_capability");
                }
            } catch (PatternSyntaxException e) {
                // a bad pattern row is reported by the table test; skip it here
            }
        }
        return null;
    }

    /** Tells whether a GPU is an NVIDIA one (a driver version, or an NVIDIA product name). */
    static boolean isNvidia(GpuDevice g) {
        if (g.name() != null && g.name().toLowerCase(Locale.ROOT).matches(".*\\b(intel|amd|radeon|apple|mali|adreno)\\b.*")) {
            return false;
        }
        return g.driverVersion() != null || (g.name() != null && NVIDIA_NAME.matcher(g.name()).find());
    }

    /** The rows of the driver table for a CUDA version: the toolkit row (matched by major.minor) and the minor-compat floor of its major. */
    static List<Row> driverRows(CompatData data, String cuda) {
        String mm = Versions.majorMinor(cuda);
        int[] v = Versions.parse(cuda);
        return data.rows(CompatData.CUDA_DRIVER_MIN).stream().filter(r -> {
            String kind = r.get("kind").toLowerCase(Locale.ROOT);
            if (kind.equals("minor")) {
                int[] rv = Versions.parse(r.get("cuda"));
                return v != null && rv != null && rv[0] == v[0];
            }
            return mm.equals(Versions.majorMinor(r.get("cuda")));
        }).toList();
    }

    /** "tensorflow" -> "TF", "torch" -> "PyTorch", for sentences. */
    static String display(String framework) {
        return framework.equals("tensorflow") ? "TF" : framework.equals("torch") ? "PyTorch" : framework;
    }
}
