package dev.crashlab.parse.env;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ParseResult;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code conda list} rows ({@code name version build [features] [channel]}) and what their build strings say. */
final class CondaRows {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][\\w.\\-]{0,100}");
    private static final Pattern VERSION_START = Pattern.compile("\\d[\\w.+!\\-]{0,80}");
    /** Anaconda's pytorch builds: {@code py3.9_cuda11.3_cudnn8.2.0_0}. */
    private static final Pattern TORCH_CUDA_CUDNN = Pattern.compile("cuda(\\d{1,2}\\.\\d{1,2})_cudnn(\\d{1,2}(?:\\.\\d{1,3}){0,3})");
    /** conda-forge builds: {@code cuda112_py39h...}, {@code cuda120py311h...}. */
    private static final Pattern FORGE_CUDA = Pattern.compile("(?:^|_)cuda(\\d{2,3})(?:_|py|h)");
    private static final Pattern CPU_BUILD = Pattern.compile("(?:^|_)(?:cpu|mkl|eigen)(?:_|py|$)");
    private static final Pattern PYTHON_BUILD = Pattern.compile("^py(\\d)\\.?(\\d{1,2})(?:_|h|$)");

    /** One row: the build and channel are null when the row does not show them. */
    record Row(String name, String version, String build, String channel) {

        /** Tells whether pip installed the package ({@code pypi} channel, {@code pypi_0} or old {@code <pip>} build). */
        boolean fromPip() {
            return "<pip>".equals(build) || "pypi".equals(channel) || (build != null && build.startsWith("pypi_"));
        }

        /** Returns the Python version the build string is for ({@code py36h...} is 3.6), or null. */
        String pythonOfBuild() {
            if (build == null) {
                return null;
            }
            Matcher m = PYTHON_BUILD.matcher(build);
            return m.find() ? m.group(1) + "." + m.group(2) : null;
        }
    }

    private CondaRows() {}

    /** Returns the row a line holds, or null when the line is not a conda row. */
    static Row parse(String line) {
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#") || t.length() > 400) {
            return null;
        }
        String[] tokens = t.split("\\s+");
        if (tokens.length < 2 || tokens.length > 6 || !NAME.matcher(tokens[0]).matches()
                || !VERSION_START.matcher(tokens[1]).matches()) {
            return null;
        }
        String build = tokens.length > 2 ? tokens[2] : null;
        String channel = null;
        if (tokens.length > 3) {
            String last = tokens[tokens.length - 1];
            channel = last.startsWith("[") ? null : last;
        }
        return new Row(tokens[0], tokens[1], build, channel);
    }

    /** Adds the facts of a row; {@code origin} names the listing. */
    static void emit(ParseResult.Builder out, Row row, String origin, SourceRef ref) {
        boolean pip = row.fromPip();
        PackageFacts.emit(out, row.name(), row.version(), pip ? origin + " (pip)" : origin, ref);
        if (pip || row.build() == null) {
            return;
        }
        String name = VersionText.packageName(row.name());
        String build = row.build();
        switch (name) {
            case "pytorch", "torch" -> {
                Matcher m = TORCH_CUDA_CUDNN.matcher(build);
                Matcher forge = FORGE_CUDA.matcher(build);
                if (m.find()) {
                    out.fact(new BuildInfo("torch", row.version(), m.group(1), m.group(2), false, List.of(ref)));
                } else if (forge.find()) {
                    out.fact(new BuildInfo("torch", row.version(), VersionText.compactCuda(forge.group(1)), null, false, List.of(ref)));
                } else if (CPU_BUILD.matcher(build).find()) {
                    out.fact(new BuildInfo("torch", row.version(), null, null, true, List.of(ref)));
                }
            }
            case "tensorflow", "tensorflow-base", "tensorflow-gpu" -> {
                Matcher forge = FORGE_CUDA.matcher(build);
                if (forge.find()) {
                    out.fact(new BuildInfo("tensorflow", row.version(), VersionText.compactCuda(forge.group(1)), null, false,
                            List.of(ref)));
                } else if (CPU_BUILD.matcher(build).find()) {
                    out.fact(new BuildInfo("tensorflow", row.version(), null, null, true, List.of(ref)));
                }
            }
            case "tflow-select" -> {
                // the metapackage's build picks the tensorflow variant: mkl and eigen are CPU-only, gpu is not
                if (build.equals("mkl") || build.equals("eigen")) {
                    out.fact(new BuildInfo("tensorflow", null, null, null, true, List.of(ref)));
                }
            }
            default -> { }
        }
    }
}
