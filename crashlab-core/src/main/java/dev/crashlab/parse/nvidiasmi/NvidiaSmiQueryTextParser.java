package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.fact.GpuLost;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi -q} text (and {@code -L} lists, {@code nvlink --status}, lost-GPU and driver
 * messages, and captures mixing them) into {@code GpuDevice}, {@code GpuProcess} and {@code GpuLost} facts.
 *
 * <p>NOTE: {@code -q} is an indented tree of {@code Key : value} lines whose keys were renamed across
 * drivers ("Clocks Throttle Reasons" became "Clocks Event Reasons", "Power Readings" became "GPU Power
 * Readings"); the parser keeps the path of section names above each key and matches on it.
 */
public final class NvidiaSmiQueryTextParser implements ArtifactParser {

    private static final Pattern GPU_HEADER = Pattern.compile(
            "^GPU\\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f])\\s*$");
    private static final Pattern LIST_ENTRY = Pattern.compile(
            "^GPU\\s+(\\d{1,4}):\\s+(.+?)\\s+\\(UUID:\\s*(GPU-[0-9A-Fa-f-]{1,64})\\)\\s*$");
    private static final Pattern KEY_VALUE = Pattern.compile("^([^:]{1,120}?)\\s*:\\s*(.*)$");
    private static final int MAX_DEVICES = 1024;
    private static final int MAX_DEPTH = 32;

    @Override
    public String name() {
        return "nvidia-smi-query-text";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.NVIDIA_SMI_QUERY_TEXT);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        try (BufferedReader text = input.openText()) {
            return new Run(input).read(new BoundedLineReader(text, SmiValues.MAX_LINE));
        }
    }

    /** The state of one parse. */
    private static final class Run {
        private final ParseInput input;
        private final ParseResult.Builder out = new ParseResult.Builder();
        private final List<DeviceDraft> devices = new ArrayList<>();
        private final List<Integer> indents = new ArrayList<>();
        private final List<String> sections = new ArrayList<>();
        private String driver;
        private String cuda;
        private DeviceDraft current;
        private ProcessDraft process;
        private boolean recognised;
        private boolean reportedLongLine;

        Run(ParseInput input) {
            this.input = input;
        }

        ParseResult read(BoundedLineReader lines) throws IOException {
            String line;
            while ((line = lines.readLine()) != null) {
                if (lines.truncated() && !reportedLongLine) {
                    reportedLongLine = true;
                    out.problem(new ParseProblem.MalformedInput(input.at(lines.lineNumber(), line),
                            "line longer than " + SmiValues.MAX_LINE + " characters; the rest was skipped"));
                }
                line(line, lines.lineNumber());
            }
            endGpu();
            for (DeviceDraft d : devices) {
                out.fact(d.build());
            }
            if (!recognised) {
                out.problem(new ParseProblem.MalformedInput(input.at(Math.max(1, lines.lineNumber()), ""),
                        "no nvidia-smi query output found"));
            }
            if (lines.replacements() > 0) {
                out.problem(new ParseProblem.UnreadableText(input.path(),
                        lines.replacements() + " undecodable bytes replaced"));
            }
            return out.build();
        }

        private void line(String raw, long no) {
            GpuLost lost = SmiMessages.lost(raw, input.at(no, raw));
            if (lost != null) {
                out.fact(lost);
                recognised = true;
                return;
            }
            String t = raw.strip();
            if (t.isEmpty()) {
                return;
            }
            int indent = indent(raw);
            if (indent == 0) {
                topLevel(t, raw, no);
                return;
            }
            if (t.charAt(0) == '|' || t.charAt(0) == '+') {
                return;
            }
            while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
                indents.remove(indents.size() - 1);
                sections.remove(sections.size() - 1);
            }
            if (!sections.contains("Processes")) {
                endProcess();
            }
            Matcher kv = KEY_VALUE.matcher(t);
            if (!kv.matches()) {
                if (indents.size() < MAX_DEPTH) {
                    indents.add(indent);
                    sections.add(t);
                }
                return;
            }
            if (current == null) {
                // an excerpt that starts inside a GPU block: keep its counters on a device without a header
                startGpu(null, raw, no);
            }
            field(kv.group(1).strip(), kv.group(2).strip(), raw, no);
        }

        private void topLevel(String t, String raw, long no) {
            endGpu();
            indents.clear();
            sections.clear();
            Matcher g = GPU_HEADER.matcher(t);
            if (g.matches()) {
                startGpu(g.group(1), raw, no);
                return;
            }
            Matcher l = LIST_ENTRY.matcher(t);
            if (l.matches()) {
                DeviceDraft d = add(raw, no);
                if (d != null) {
                    d.set("index", l.group(1));
                    d.set("name", l.group(2));
                    d.set("uuid", l.group(3));
                }
                recognised = true;
                return;
            }
            Matcher kv = KEY_VALUE.matcher(t);
            if (kv.matches()) {
                String key = kv.group(1).strip();
                // 610+ appends "[Deprecated; ... Use KMD Version instead]": the version is the first word
                String value = SmiValues.text(kv.group(2));
                String version = value == null ? null : value.split("\\s+", 2)[0];
                if ((key.equals("Driver Version") || key.equals("KMD Version")) && SmiValues.driverVersion(version)) {
                    driver = version;
                    recognised = true;
                } else if ((key.equals("CUDA Version") || key.equals("CUDA UMD Version"))
                        && version.matches("\\d{1,3}\\.\\d{1,3}")) {
                    cuda = version;
                }
            }
        }

        private void startGpu(String busId, String raw, long no) {
            current = add(raw, no);
            if (current != null && busId != null) {
                current.set("busId", busId);
            }
            recognised = true;
        }

        private DeviceDraft add(String raw, long no) {
            if (devices.size() >= MAX_DEVICES) {
                return null;
            }
            DeviceDraft d = new DeviceDraft(input.at(no, raw));
            d.driverVersion = driver;
            d.driverCudaVersion = cuda;
            devices.add(d);
            return d;
        }

        private void endGpu() {
            endProcess();
            if (current != null && !current.hasContent()) {
                devices.remove(current);
            }
            current = null;
        }

        private void field(String key, String value, String raw, long no) {
            if (sections.contains("Processes")) {
                processField(key, value, raw, no);
                return;
            }
            if (current == null || (!sections.isEmpty() && sections.get(0).startsWith("MIG Device"))) {
                return; // MIG instances are parts of the GPU, not GPUs of their own
            }
            String section = sections.isEmpty() ? "" : sections.get(0);
            String parent = sections.isEmpty() ? "" : sections.get(sections.size() - 1);
            switch (section) {
                case "" -> topField(key, value);
                case "PCI" -> {
                    if (key.equals("Bus Id")) {
                        current.set("busId", value);
                    }
                }
                case "FB Memory Usage" -> {
                    if (key.equals("Total")) {
                        current.set("memoryTotalMiB", value);
                    } else if (key.equals("Used")) {
                        current.set("memoryUsedMiB", value);
                    }
                }
                case "Driver Model" -> {
                    if (key.equals("Current")) {
                        current.set("driverModel", value);
                    }
                }
                case "MIG Mode" -> {
                    if (key.equals("Current")) {
                        current.set("migMode", value);
                    }
                }
                case "Temperature" -> {
                    if (key.equals("GPU Current Temp")) {
                        current.set("temperatureC", value);
                    }
                }
                case "Power Readings", "GPU Power Readings" -> {
                    if (key.equals("Power Draw") || key.equals("Average Power Draw")
                            || key.equals("Instantaneous Power Draw")) {
                        current.set("powerDrawW", value);
                    } else if (key.equals("Power Limit") || key.equals("Current Power Limit")
                            || key.equals("Enforced Power Limit")) {
                        current.set("powerLimitW", value);
                    }
                }
                case "Clocks Throttle Reasons", "Clocks Event Reasons" -> {
                    if (value.equals("Active")) {
                        current.throttle(key);
                    }
                }
                case "ECC Errors" -> {
                    if (sections.size() >= 2 && sections.get(1).equals("Volatile") && uncorrected(key, parent)) {
                        current.set("eccUncorrected", value);
                    }
                }
                case "Retired Pages" -> {
                    if (key.equals("Single Bit ECC") || key.equals("Double Bit ECC")) {
                        current.set("retiredPages", value);
                    }
                }
                case "Remapped Rows" -> {
                    if (key.equals("Correctable Error") || key.equals("Uncorrectable Error")) {
                        current.set("retiredPages", value);
                    }
                }
                default -> { }
            }
        }

        private void topField(String key, String value) {
            switch (key) {
                case "Product Name" -> current.set("name", value);
                case "GPU UUID" -> current.set("uuid", value);
                case "Compute Mode" -> current.set("computeMode", value);
                case "Performance State" -> current.set("performanceState", value);
                case "CUDA Compute Capability", "Compute Capability" -> current.set("computeCapability", value);
                case "Clocks Throttle Reasons", "Clocks Event Reasons" -> current.keepUnavailable("throttleReasons", value);
                case "Remapped Rows" -> current.keepUnavailable("retiredPages", value);
                default -> { }
            }
        }

        private static boolean uncorrected(String key, String parent) {
            String k = key.toLowerCase(Locale.ROOT);
            // old drivers split by bit count (Double Bit/Total); newer ones by SRAM/DRAM, SRAM further by parity/SEC-DED
            return (parent.equals("Double Bit") && k.equals("total"))
                    || k.equals("dram uncorrectable") || k.equals("sram uncorrectable")
                    || k.equals("sram uncorrectable parity") || k.equals("sram uncorrectable sec-ded");
        }

        private void processField(String key, String value, String raw, long no) {
            if (key.equals("Process ID")) {
                endProcess();
                process = new ProcessDraft(SmiValues.whole(value), input.at(no, raw));
                return;
            }
            if (process == null) {
                return;
            }
            switch (key) {
                case "Type" -> process.type = SmiValues.text(value);
                case "Name", "Process Name" -> process.name = SmiValues.text(value);
                case "Used GPU Memory" -> process.memory = SmiValues.mebibytes(value);
                default -> { }
            }
        }

        private void endProcess() {
            if (process != null && process.pid != null) {
                out.fact(new GpuProcess(current == null ? null : current.index, process.pid, process.type,
                        process.name, process.memory, List.of(process.at)));
            }
            process = null;
        }

        private static int indent(String raw) {
            int n = 0;
            for (int i = 0; i < raw.length(); i++) {
                char c = raw.charAt(i);
                if (c == ' ') {
                    n++;
                } else if (c == '\t') {
                    n += 4;
                } else {
                    break;
                }
            }
            return n;
        }
    }

    /** One process entry while its lines are read. */
    private static final class ProcessDraft {
        final Long pid;
        final dev.crashlab.fact.SourceRef at;
        String type;
        String name;
        Long memory;

        ProcessDraft(Long pid, dev.crashlab.fact.SourceRef at) {
            this.pid = pid;
            this.at = at;
        }
    }
}
