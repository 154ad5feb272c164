package dev.crashlab.compat;

import dev.crashlab.kb.ClasspathFolder;
import dev.crashlab.kb.KbProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Holds the compat tables ({@code compat/*.csv}) the checks compare facts against; a missing table makes
 * the checks that need it answer {@code unknown}.
 *
 * @param tables the tables by file name
 * @param problems validation errors as {@code file:line: message}
 */
public record CompatData(Map<String, CsvTable> tables, List<KbProblem> problems) {

    /** Where the packaged copy of {@code compat/} lives on the class path. */
    public static final String CLASSPATH_FOLDER = "crashlab/compat";

    public static final String TENSORFLOW_BUILDS = "tensorflow-builds.csv";
    public static final String PYTORCH_WHEELS = "pytorch-wheels.csv";
    public static final String CUDA_DRIVER_MIN = "cuda-driver-min.csv";
    public static final String CUDNN_CUDA = "cudnn-cuda.csv";
    public static final String GPU_COMPUTE_CAPABILITY = "gpu-compute-capability.csv";
    public static final String GPU_THROUGHPUT = "gpu-throughput.csv";
    public static final String CUDA_LIBRARY_MAJORS = "cuda-library-majors.csv";

    /** The required columns of each known table. */
    static final Map<String, List<String>> COLUMNS = Map.of(
            TENSORFLOW_BUILDS, List.of("tensorflow", "platform", "python_min", "python_max", "cuda", "cudnn", "source"),
            PYTORCH_WHEELS, List.of("torch", "cuda", "python_min", "python_max", "arch_list", "source"),
            CUDA_DRIVER_MIN, List.of("cuda", "linux_min", "windows_min", "kind", "source"),
            CUDNN_CUDA, List.of("cudnn", "cuda_major", "cuda_min", "cuda_max", "source"),
            GPU_COMPUTE_CAPABILITY, List.of("pattern", "compute_capability", "source"),
            GPU_THROUGHPUT, List.of("pattern", "fp32_tflops", "fp16_tflops", "source"),
            CUDA_LIBRARY_MAJORS, List.of("library", "major", "cuda_min", "cuda_max", "source"));

    public CompatData {
        tables = Map.copyOf(tables);
        problems = List.copyOf(problems);
    }

    /** No tables at all (every table-backed check answers unknown). */
    public static CompatData empty() {
        return new CompatData(Map.of(), List.of());
    }

    /** The rows of a table, empty when the table is absent. */
    public List<CsvTable.Row> rows(String table) {
        return Optional.ofNullable(tables.get(table)).map(CsvTable::rows).orElse(List.of());
    }

    /** Loads every {@code *.csv} in a folder. */
    public static CompatData load(Path folder) {
        Map<String, String> files = new LinkedHashMap<>();
        List<KbProblem> problems = new ArrayList<>();
        if (Files.isDirectory(folder)) {
            try (var list = Files.list(folder)) {
                for (Path p : list.sorted().toList()) {
                    if (p.getFileName().toString().endsWith(".csv")) {
                        files.put(p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8));
                    }
                }
            } catch (IOException e) {
                problems.add(new KbProblem(folder.toString(), 0, "cannot read: " + e.getMessage()));
            }
        }
        return parse(files, problems);
    }

    /** Loads the copy packaged on the class path. */
    public static CompatData loadPackaged() {
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : ClasspathFolder.list(CompatData.class, CLASSPATH_FOLDER)) {
            if (name.endsWith(".csv")) {
                try (InputStream in = CompatData.class.getClassLoader().getResourceAsStream(CLASSPATH_FOLDER + "/" + name)) {
                    if (in != null) {
                        files.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    // an unreadable resource is a missing table
                }
            }
        }
        return parse(files, new ArrayList<>());
    }

    /** Parses tables given as file name -> content. */
    public static CompatData parse(Map<String, String> files, List<KbProblem> problems) {
        Map<String, CsvTable> tables = new LinkedHashMap<>();
        files.forEach((name, text) -> tables.put(name,
                CsvTable.parse(name, text, COLUMNS.getOrDefault(name, List.of("source")), problems)));
        return new CompatData(tables, problems);
    }

    /** The file contents in a stable form, for the KB fingerprint. */
    public String fingerprintText() {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(tables).forEach((n, t) -> {
            sb.append(n).append('\n');
            t.rows().forEach(r -> sb.append(r.values()).append('\n'));
        });
        return sb.toString();
    }
}
