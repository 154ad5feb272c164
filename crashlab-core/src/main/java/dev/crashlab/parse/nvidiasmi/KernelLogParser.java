package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.HostOomKill;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.XidEvent;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads kernel logs ({@code dmesg}, {@code journalctl -k}) for NVIDIA Xid errors and OOM-killer kills,
 * into {@code XidEvent} and {@code HostOomKill} facts.
 *
 * <p>NOTE: a kill is usually logged twice (an {@code oom-kill:} summary and an {@code Out of memory:
 * Killed process} line); each line is its own fact, since their details differ.
 *
 * <p>Once the whole log is read, each Xid event gets the number of different processes the driver blamed for an
 * Xid on the same GPU ({@link XidEvent#processesOnGpu()}): NVIDIA's Xid catalog lists a hardware error among the
 * causes of Xid 13 and 31, usually an application's fault, and what tells it from a program's bug is that a failing GPU
 * faults for whatever process runs on it.
 */
public final class KernelLogParser implements ArtifactParser {

    private static final Pattern XID = Pattern.compile(
            "NVRM: Xid \\((?:PCI:)?([0-9A-Fa-f:.]{1,20})\\):? (\\d{1,5})(?:,\\s*(.*))?");
    private static final Pattern XID_PID = Pattern.compile("^pid=(\\d{1,10})");
    private static final Pattern KILLED = Pattern.compile(
            "(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process (\\d{1,10}) \\(([^)]{0,200})\\)(.*)");
    private static final Pattern OOM_KILL = Pattern.compile("oom-kill:(.*)");
    private static final Pattern TASK = Pattern.compile("(?:^|,)task=([^,]{0,200})");
    private static final Pattern PID = Pattern.compile("(?:^|,)pid=(\\d{1,10})");
    private static final int MAX_FACTS = 100_000;

    @Override
    public String name() {
        return "kernel-log";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.KERNEL_LOG);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        List<Fact> found = new ArrayList<>();
        int facts = 0;
        boolean reportedLongLine = false;
        try (BufferedReader text = input.openText()) {
            BoundedLineReader lines = new BoundedLineReader(text, SmiValues.MAX_LINE);
            String line;
            while ((line = lines.readLine()) != null) {
                if (lines.truncated() && !reportedLongLine) {
                    reportedLongLine = true;
                    out.problem(new ParseProblem.MalformedInput(input.at(lines.lineNumber(), line),
                            "line longer than " + SmiValues.MAX_LINE + " characters; the rest was skipped"));
                }
                if (facts >= MAX_FACTS) {
                    continue;
                }
                SourceRef at = input.at(lines.lineNumber(), line);
                if (line.contains("NVRM: Xid")) {
                    Matcher m = XID.matcher(line);
                    if (m.find()) {
                        found.add(xid(m, at));
                        facts++;
                    } else {
                        out.problem(new ParseProblem.MalformedInput(at, "Xid line without a code"));
                    }
                } else if (line.contains("out of memory: Kill") || line.contains("Out of memory: Kill")) {
                    Matcher m = KILLED.matcher(line);
                    if (m.find()) {
                        found.add(new HostOomKill(Long.valueOf(m.group(1)), m.group(2), m.group(3).strip(), List.of(at)));
                        facts++;
                    }
                } else if (line.contains("oom-kill:")) {
                    Matcher m = OOM_KILL.matcher(line);
                    if (m.find()) {
                        String detail = m.group(1).strip();
                        Matcher task = TASK.matcher(detail);
                        Matcher pid = PID.matcher(detail);
                        found.add(new HostOomKill(pid.find() ? Long.valueOf(pid.group(1)) : null,
                                task.find() ? task.group(1) : null, detail, List.of(at)));
                        facts++;
                    }
                }
            }
            if (lines.replacements() > 0) {
                out.problem(new ParseProblem.UnreadableText(input.path(),
                        lines.replacements() + " undecodable bytes replaced"));
            }
        }
        withProcessesPerGpu(found).forEach(out::fact);
        return out.build();
    }

    /** Sets, on each Xid event that names a process, how many different processes faulted on its GPU in this log. */
    static List<Fact> withProcessesPerGpu(List<Fact> found) {
        Map<String, Set<Long>> pids = new HashMap<>();
        for (Fact f : found) {
            if (f instanceof XidEvent x && named(x)) {
                pids.computeIfAbsent(gpu(x), k -> new HashSet<>()).add(x.pid());
            }
        }
        List<Fact> out = new ArrayList<>(found.size());
        for (Fact f : found) {
            out.add(f instanceof XidEvent x && named(x) ? x.withProcessesOnGpu(pids.get(gpu(x)).size()) : f);
        }
        return out;
    }

    private static boolean named(XidEvent x) {
        return x.pid() != null && x.pid() > 0;
    }

    private static String gpu(XidEvent x) {
        return x.busId() == null ? "" : x.busId().toLowerCase(java.util.Locale.ROOT);
    }

    private static XidEvent xid(Matcher m, SourceRef at) {
        int code = Integer.parseInt(m.group(2));
        String tail = m.group(3) == null ? "" : m.group(3).strip();
        Matcher p = XID_PID.matcher(tail);
        Long pid = p.find() ? Long.valueOf(p.group(1)) : null;
        XidCodes.Xid known = XidCodes.lookup(code);
        return new XidEvent(code, m.group(1), pid, known == null ? null : known.mnemonic(),
                known == null ? null : known.meaning(), tail, null, List.of(at));
    }
}
