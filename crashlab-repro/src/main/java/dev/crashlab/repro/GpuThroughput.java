package dev.crashlab.repro;

import dev.crashlab.compat.CompatData;
import dev.crashlab.compat.CsvTable;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The peak throughput of a GPU by product name, from {@code compat/gpu-throughput.csv} (each row with its source):
 * what the replay divides a pass's FLOPs by to bound the time that pass needs on the reporter's card.
 */
public final class GpuThroughput {

    /** The table's file name. */
    public static final String TABLE = "gpu-throughput.csv";

    /**
     * One card's peak.
     *
     * @param fp32Tflops the FP32 rate
     * @param fp16Tflops the dense FP16 tensor-core rate, or null where the source gives none
     * @param source where the figures come from
     */
    public record Peak(double fp32Tflops, Double fp16Tflops, String source) {}

    private record Row(Pattern pattern, Peak peak) {}

    private static final List<Row> ROWS = load();

    private GpuThroughput() {}

    private static List<Row> load() {
        return CompatData.loadPackaged().rows(TABLE).stream().map(GpuThroughput::row).toList();
    }

    private static Row row(CsvTable.Row r) {
        String fp16 = r.get("fp16_tflops");
        return new Row(Pattern.compile(r.get("pattern"), Pattern.CASE_INSENSITIVE),
                new Peak(Double.parseDouble(r.get("fp32_tflops")), fp16.isEmpty() ? null : Double.valueOf(fp16),
                        r.get("source")));
    }

    /** The peak of the first row whose pattern is found in {@code gpuName}, or empty. */
    public static Optional<Peak> of(String gpuName) {
        if (gpuName == null) {
            return Optional.empty();
        }
        for (Row r : ROWS) {
            if (r.pattern().matcher(gpuName).find()) {
                return Optional.of(r.peak());
            }
        }
        return Optional.empty();
    }
}
