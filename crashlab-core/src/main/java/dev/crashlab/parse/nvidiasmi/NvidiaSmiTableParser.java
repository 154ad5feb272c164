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
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the default {@code nvidia-smi} box table (drivers 290 to 610: the 2012 "Nb." layout, the classic
 * 79-column and the 89-column layouts, WDDM/TCC and Driver-Model columns, MIG, {@code ERR!} cells) into
 * {@code GpuDevice} and {@code GpuProcess} facts.
 *
 * <p>NOTE: a GPU is two or three box rows; which cell holds what is fixed across layouts, so the parser
 * splits rows on {@code |} and reads cells by position, and reads the column headers only to know whether
 * a Persistence-M or a driver-model (TCC/WDDM) column and a Perf column are present.
 */
public final class NvidiaSmiTableParser implements ArtifactParser {

    private static final Pattern DRIVER = Pattern.compile("(?:Driver|KMD) Version:\\s*([0-9][0-9.]*)");
    private static final Pattern CUDA = Pattern.compile("CUDA (?:UMD )?Version:\\s*([0-9][0-9.]*)");
    private static final Pattern GPU_ROW = Pattern.compile("^\\s*(\\d{1,4})\\\\?\\.?\\s+(.*?)\\s*$");
    private static final Pattern NAME_MODE = Pattern.compile("^(.*?)\\s+(On|Off|TCC|WDDM|MCDM|N/A|ERR!)$");
    private static final Pattern BUS_ID = Pattern.compile("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]");
    private static final Pattern MEMORY = Pattern.compile(
            "(\\d+)\\s*(MiB|MB|GiB)\\s*/\\s*(\\d+)\\s*(MiB|MB|GiB)");
    private static final Pattern SPACED_CELSIUS = Pattern.compile("(\\d+) C\\b");
    private static final Pattern UTIL = Pattern.compile("\\d+\\s*%|N/A|ERR!");
    private static final Pattern PROCESS = Pattern.compile(
            "^(\\d{1,4})\\S*\\s+(?:(?:N/A|-|\\d+)\\s+(?:N/A|-|\\d+)\\s+)?(\\d{1,10})\\s+(?:(C\\+G|G\\+C|M\\+C|C\\+M|C|G|M)\\s+)?"
                    + "(.*?)\\s*(?:(\\d+)\\s*MiB|N/A|Not Supported)?$");
    private static final int MAX_DEVICES = 1024;
    private static final int MAX_PROBLEMS = 100;

    private enum Section { NONE, GPUS, MIG, PROCESSES }

    @Override
    public String name() {
        return "nvidia-smi-table";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.NVIDIA_SMI_TABLE);
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
        private int problems;
        private String driver;
        private String cuda;
        private boolean sawHeader;
        private Section section = Section.NONE;
        private boolean pastRule;
        private boolean modeIsDriverModel;
        private boolean modeColumn;
        private boolean perfColumn;
        private boolean migColumn;
        private DeviceDraft current;
        private int nextRow;
        private boolean reportedLongLine;

        Run(ParseInput input) {
            this.input = input;
        }

        ParseResult read(BoundedLineReader lines) throws IOException {
            String line;
            while ((line = lines.readLine()) != null) {
                if (lines.truncated() && !reportedLongLine) {
                    reportedLongLine = true;
                    problem(new ParseProblem.MalformedInput(input.at(lines.lineNumber(), line),
                            "line longer than " + SmiValues.MAX_LINE + " characters; the rest was skipped"));
                }
                line(line, lines.lineNumber());
            }
            for (DeviceDraft d : devices) {
                out.fact(d.build());
            }
            if (!sawHeader && devices.isEmpty()) {
                problem(new ParseProblem.MalformedInput(input.at(Math.max(1, lines.lineNumber()), ""),
                        "no nvidia-smi table found"));
            }
            if (lines.replacements() > 0) {
                problem(new ParseProblem.UnreadableText(input.path(),
                        lines.replacements() + " undecodable bytes replaced"));
            }
            return out.build();
        }

        private void line(String line, long no) {
            GpuLost lost = SmiMessages.lost(line, input.at(no, line));
            if (lost != null) {
                out.fact(lost);
                return;
            }
            Matcher d = DRIVER.matcher(line);
            if (line.contains("NVIDIA-SMI") && d.find()) {
                driver = d.group(1);
                Matcher c = CUDA.matcher(line);
                cuda = c.find() ? c.group(1) : null;
                sawHeader = true;
                section = Section.NONE;
                return;
            }
            String t = line.strip();
            if (t.isEmpty()) {
                return;
            }
            char first = t.charAt(0);
            if (first != '|' && first != '+') {
                section = Section.NONE;
                return;
            }
            if (t.startsWith("|=")) {
                pastRule = true;
                nextRow = 1;
                return;
            }
            if (first == '+' || t.startsWith("|-")) {
                nextRow = 1;
                return;
            }
            if (t.contains("Bus-Id") || t.contains("Bus Id")) {
                section = Section.GPUS;
                pastRule = false;
                String[] cells = cells(t);
                String c0 = cells.length > 0 ? cells[0] : "";
                modeIsDriverModel = c0.contains("TCC/WDDM") || c0.contains("Driver-Model");
                modeColumn = modeIsDriverModel || c0.contains("Persistence-M");
                perfColumn = false;
                migColumn = false;
                return;
            }
            if (t.contains("MIG devices:")) {
                section = Section.MIG;
                pastRule = false;
                return;
            }
            if (t.contains("Processes:") || t.contains("processes:")) {
                section = Section.PROCESSES;
                pastRule = false;
                return;
            }
            if (section == Section.GPUS && !pastRule) {
                perfColumn |= t.contains("Perf");
                migColumn |= t.contains("MIG M.");
                return;
            }
            if (section == Section.GPUS) {
                gpuRow(cells(t), line, no);
            } else if (section == Section.PROCESSES && pastRule) {
                processRow(t, line, no);
            }
        }

        private void gpuRow(String[] cells, String line, long no) {
            if (nextRow == 1) {
                Matcher m = cells.length >= 3 ? GPU_ROW.matcher(cells[0]) : null;
                if (m == null || !m.matches()) {
                    return;
                }
                if (devices.size() >= MAX_DEVICES) {
                    current = null;
                    return;
                }
                current = new DeviceDraft(input.at(no, line));
                devices.add(current);
                current.index = Integer.valueOf(m.group(1));
                current.driverVersion = driver;
                current.driverCudaVersion = cuda;
                nameAndMode(m.group(2));
                busCell(cells[1]);
                eccCell(cells[2]);
                nextRow = 2;
            } else if (current != null && nextRow == 2) {
                if (cells.length >= 1) {
                    sensorCell(cells[0]);
                }
                if (cells.length >= 2) {
                    memoryCell(cells[1]);
                }
                if (cells.length >= 3) {
                    modeCell(cells[2]);
                }
                nextRow = 3;
            } else if (current != null && nextRow == 3) {
                if (migColumn && cells.length >= 3 && !cells[2].isBlank()) {
                    String mig = cells[2].trim();
                    if (!current.keepUnavailable("migMode", mig)) {
                        current.migMode = mig;
                    }
                }
                nextRow = 4;
            }
        }

        private void nameAndMode(String rest) {
            String name = rest;
            if (modeColumn) {
                Matcher nm = NAME_MODE.matcher(rest);
                if (nm.matches()) {
                    name = nm.group(1).trim();
                    String mode = nm.group(2);
                    if (modeIsDriverModel && !current.keepUnavailable("driverModel", mode)) {
                        current.driverModel = mode;
                    }
                }
            }
            // an ERR! name is kept as printed: the device is there, the driver could not say what it is
            current.keepUnavailable("name", name);
            current.name = name.isEmpty() ? null : name;
        }

        private void busCell(String cell) {
            Matcher b = BUS_ID.matcher(cell);
            if (b.find()) {
                current.busId = b.group();
            } else {
                current.keepUnavailable("busId", cell);
            }
        }

        private void eccCell(String cell) {
            String[] tokens = tokens(cell);
            if (tokens.length == 0) {
                return;
            }
            String v = tokens[tokens.length - 1];
            Long n = SmiValues.whole(v);
            if (n != null) {
                current.eccUncorrected = n;
            } else {
                current.keepUnavailable("eccUncorrected", v);
            }
        }

        private void sensorCell(String cell) {
            String c = SPACED_CELSIUS.matcher(cell).replaceAll("$1C");
            // the usage/cap separator has spaces around it; the slash of an "N/A" has none
            int slash = c.indexOf(" / ");
            String[] left = tokens(slash < 0 ? c : c.substring(0, slash));
            if (left.length >= 2) {
                String temp = left[1];
                Integer t = temp.endsWith("C") ? SmiValues.integer(temp.substring(0, temp.length() - 1)) : null;
                if (t != null) {
                    current.temperatureC = t;
                } else {
                    current.keepUnavailable("temperatureC", temp);
                }
            }
            if (perfColumn && left.length >= 3) {
                String perf = left[2];
                if (perf.matches("P\\d{1,2}")) {
                    current.performanceState = perf;
                } else {
                    current.keepUnavailable("performanceState", perf);
                }
            }
            if (slash >= 0 && left.length >= 3) {
                power(left[left.length - 1], true);
                String[] right = tokens(c.substring(slash + 3));
                if (right.length >= 1) {
                    power(right[0], false);
                }
            }
        }

        private void power(String v, boolean draw) {
            Double w = v.endsWith("W") ? SmiValues.number(v.substring(0, v.length() - 1)) : null;
            if (w != null) {
                if (draw) {
                    current.powerDrawW = w;
                } else {
                    current.powerLimitW = w;
                }
            } else {
                current.keepUnavailable(draw ? "powerDrawW" : "powerLimitW", v);
            }
        }

        private void memoryCell(String cell) {
            Matcher m = MEMORY.matcher(cell);
            if (m.find()) {
                current.memoryUsedMiB = SmiValues.mebibytes(m.group(1) + m.group(2));
                current.memoryTotalMiB = SmiValues.mebibytes(m.group(3) + m.group(4));
            } else if (cell.contains("ERR!") || cell.contains("N/A")) {
                current.keepUnavailable("memoryUsedMiB", cell.contains("ERR!") ? "ERR!" : "N/A");
            }
        }

        private void modeCell(String cell) {
            String[] tokens = tokens(cell);
            int from = tokens.length > 1 && UTIL.matcher(tokens[0]).matches() ? 1 : 0;
            if (tokens.length > 1 && tokens[1].equals("%")) {
                from = 2;
            }
            String mode = String.join(" ", Arrays.copyOfRange(tokens, Math.min(from, tokens.length), tokens.length));
            if (mode.isEmpty()) {
                return;
            }
            if (!current.keepUnavailable("computeMode", mode)) {
                current.computeMode = mode;
            }
        }

        private void processRow(String t, String line, long no) {
            String content = t.substring(1, t.endsWith("|") && t.length() > 1 ? t.length() - 1 : t.length()).trim();
            if (content.isEmpty() || content.contains("No running processes found")
                    || content.contains("Not Supported")) {
                return;
            }
            Matcher m = PROCESS.matcher(content);
            if (!m.matches()) {
                problem(new ParseProblem.MalformedInput(input.at(no, line), "unrecognised process row"));
                return;
            }
            Long mem = m.group(5) == null ? null : SmiValues.whole(m.group(5));
            String name = m.group(4).isEmpty() ? null : m.group(4);
            out.fact(new GpuProcess(Integer.valueOf(m.group(1)), Long.valueOf(m.group(2)), m.group(3), name, mem,
                    List.of(input.at(no, line))));
        }

        private void problem(ParseProblem p) {
            if (problems++ < MAX_PROBLEMS) {
                out.problem(p);
            }
        }

        private static String[] cells(String t) {
            String body = t.startsWith("|") ? t.substring(1) : t;
            if (body.endsWith("|")) {
                body = body.substring(0, body.length() - 1);
            }
            return body.split("\\|", -1);
        }

        private static String[] tokens(String s) {
            String t = s.strip();
            return t.isEmpty() ? new String[0] : t.split("\\s+");
        }
    }
}
