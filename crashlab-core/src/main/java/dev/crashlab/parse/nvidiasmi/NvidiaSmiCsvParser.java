package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi --query-gpu=... --format=csv} (with or without {@code noheader} and
 * {@code nounits}) into {@code GpuDevice} facts, and {@code --query-compute-apps} CSV into {@code GpuProcess}.
 *
 * <p>NOTE: the header names the fields; without one, only values whose shape says what they are (a GPU
 * name, a bus id, a UUID, a three-part driver version) are taken, and a row with no GPU name is a problem.
 */
public final class NvidiaSmiCsvParser implements ArtifactParser {

    private static final Pattern HEADER_FIELD = Pattern.compile("[a-z][A-Za-z0-9_.]*(\\s*\\[[^\\]]*\\])?");
    private static final Pattern UNIT = Pattern.compile("\\s*\\[[^\\]]*\\]$");
    private static final Pattern GPU_NAME = Pattern.compile(
            "(?:NVIDIA|GeForce|Quadro|Tesla|TITAN|GRID)\\b[\\w ()/.+-]{0,60}");
    private static final Pattern BUS_ID = Pattern.compile("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]");
    private static final Pattern UUID = Pattern.compile("GPU-[0-9A-Fa-f-]{8,64}");
    private static final Pattern LINUX_DRIVER = Pattern.compile("\\d{3}\\.\\d{2,3}\\.\\d{2}");
    private static final int MAX_FIELDS = 1024;
    private static final int MAX_PROBLEMS = 100;

    @Override
    public String name() {
        return "nvidia-smi-csv";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.NVIDIA_SMI_CSV);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        int problems = 0;
        boolean any = false;
        String[] header = null;
        try (BufferedReader text = input.openText()) {
            BoundedLineReader lines = new BoundedLineReader(text, SmiValues.MAX_CSV_LINE);
            String line;
            while ((line = lines.readLine()) != null) {
                long no = lines.lineNumber();
                if (line.isBlank() || line.startsWith("#")) {
                    continue; // captures put the command on a "# nvidia-smi ..." line above its output
                }
                String[] fields = split(line);
                if (fields.length < 2) {
                    continue; // not a CSV row: a capture's command line or prose around the CSV
                }
                if (isHeader(fields)) {
                    header = new String[fields.length];
                    for (int i = 0; i < fields.length; i++) {
                        header[i] = UNIT.matcher(fields[i].strip()).replaceFirst("").toLowerCase(Locale.ROOT);
                    }
                    any = true;
                    continue;
                }
                SourceRef at = input.at(no, line);
                String problem;
                if (header == null) {
                    problem = headerless(fields, at, out);
                } else if (header.length != fields.length) {
                    problem = "row has " + fields.length + " fields, the header " + header.length;
                } else {
                    problem = null;
                    row(header, fields, at, out);
                }
                if (problem == null) {
                    any = true;
                } else if (problems++ < MAX_PROBLEMS) {
                    out.problem(new ParseProblem.MalformedInput(at, problem));
                }
            }
            if (!any && problems == 0) {
                out.problem(new ParseProblem.MalformedInput(input.at(1, ""), "no nvidia-smi CSV found"));
            }
            if (lines.replacements() > 0) {
                out.problem(new ParseProblem.UnreadableText(input.path(),
                        lines.replacements() + " undecodable bytes replaced"));
            }
        }
        return out.build();
    }

    private static String[] split(String line) {
        String[] f = line.split(",", MAX_FIELDS);
        for (int i = 0; i < f.length; i++) {
            f[i] = f[i].strip();
        }
        return f;
    }

    private static boolean isHeader(String[] fields) {
        boolean named = false;
        for (String f : fields) {
            if (!HEADER_FIELD.matcher(f).matches()) {
                return false;
            }
            named |= f.contains(".") || f.contains("_") || f.startsWith("name") || f.startsWith("index")
                    || f.startsWith("pid") || f.startsWith("pstate") || f.startsWith("uuid");
        }
        return named;
    }

    private static void row(String[] header, String[] fields, SourceRef at, ParseResult.Builder out) {
        if (contains(header, "pid") && !contains(header, "memory.total")) {
            process(header, fields, at, out);
            return;
        }
        DeviceDraft d = new DeviceDraft(at);
        for (int i = 0; i < header.length; i++) {
            String h = header[i];
            String v = fields[i];
            String field = switch (h) {
                case "index" -> "index";
                case "name", "gpu_name" -> "name";
                case "uuid", "gpu_uuid" -> "uuid";
                case "pci.bus_id", "gpu_bus_id" -> "busId";
                case "memory.total" -> "memoryTotalMiB";
                case "memory.used" -> "memoryUsedMiB";
                case "driver_version" -> "driverVersion";
                case "compute_cap" -> "computeCapability";
                case "driver_model.current" -> "driverModel";
                case "compute_mode" -> "computeMode";
                case "mig.mode.current" -> "migMode";
                case "ecc.errors.uncorrected.volatile.total" -> "eccUncorrected";
                case "retired_pages.single_bit_ecc.count", "retired_pages.sbe",
                        "retired_pages.double_bit.count", "retired_pages.dbe" -> "retiredPages";
                case "temperature.gpu" -> "temperatureC";
                case "power.draw", "power.draw.average" -> "powerDrawW";
                case "power.limit", "enforced.power.limit" -> "powerLimitW";
                case "pstate" -> "performanceState";
                default -> null;
            };
            if (field != null) {
                d.set(field, v);
            } else if ((h.startsWith("clocks_throttle_reasons.") || h.startsWith("clocks_event_reasons."))
                    && v.equals("Active")) {
                String reason = h.substring(h.indexOf('.') + 1);
                if (!reason.equals("active") && !reason.equals("supported")) {
                    d.throttle(reason);
                }
            }
        }
        if (d.hasContent() || d.busId != null) {
            out.fact(d.build());
        }
    }

    private static void process(String[] header, String[] fields, SourceRef at, ParseResult.Builder out) {
        Long pid = null;
        String name = null;
        Long memory = null;
        for (int i = 0; i < header.length; i++) {
            switch (header[i]) {
                case "pid" -> pid = SmiValues.whole(fields[i]);
                case "process_name", "name" -> name = SmiValues.text(fields[i]);
                case "used_gpu_memory", "used_memory" -> memory = SmiValues.mebibytes(fields[i]);
                default -> { }
            }
        }
        if (pid != null) {
            out.fact(new GpuProcess(null, pid, null, name, memory, List.of(at)));
        }
    }

    /** Takes the self-identifying values of a row without a header; returns a problem, or null. */
    private static String headerless(String[] fields, SourceRef at, ParseResult.Builder out) {
        DeviceDraft d = new DeviceDraft(at);
        int names = 0;
        int buses = 0;
        int uuids = 0;
        int drivers = 0;
        for (String f : fields) {
            if (GPU_NAME.matcher(f).matches() && !f.startsWith("[")) {
                names++;
                d.name = f;
            } else if (BUS_ID.matcher(f).matches()) {
                buses++;
                d.busId = f;
            } else if (UUID.matcher(f).matches()) {
                uuids++;
                d.uuid = f;
            } else if (LINUX_DRIVER.matcher(f).matches()) {
                // a two-part Windows version (442.92) reads the same as a power or clock figure: not taken
                drivers++;
                d.driverVersion = f;
            }
        }
        if (names != 1) {
            return names == 0 ? "CSV without a header and no GPU name: cannot tell its fields"
                    : "CSV without a header and several GPU-name-like values: cannot tell its fields";
        }
        if (buses > 1) {
            d.busId = null;
        }
        if (uuids > 1) {
            d.uuid = null;
        }
        if (drivers > 1) {
            d.driverVersion = null;
        }
        out.fact(d.build());
        return null;
    }

    private static boolean contains(String[] header, String name) {
        for (String h : header) {
            if (h.equals(name)) {
                return true;
            }
        }
        return false;
    }
}
