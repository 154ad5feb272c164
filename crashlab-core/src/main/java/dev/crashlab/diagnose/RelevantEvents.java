package dev.crashlab.diagnose;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WerReport;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.fact.WindowsFact;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps the Windows events that belong to this crash and sets the others aside (README, "Evidence that belongs
 * to this crash"). An event log holds every program's events for days or months; only these count as evidence:
 * <ul>
 * <li>events about this job's process: the application it names is one the bundle's other files name (python.exe,
 *     an .exe in the log), or the faulting module is a library the log names;</li>
 * <li>GPU, driver and system events (display driver resets, WHEA, bug checks, Kernel-Power 41) near the crash
 *     time, when the log's time stamps give it; without a crash time, GPU and driver events still count, a
 *     reboot or bug check of unknown date does not.</li>
 * </ul>
 * The rest are other programs' crashes and routine records: listed as "other events", never evidence.
 */
final class RelevantEvents {

    /** GPU and driver events count this far either side of the crash time. */
    static final Duration NEAR = Duration.ofMinutes(30);
    /** A reboot is logged when the machine comes back: Kernel-Power 41 and bug checks count this long after. */
    static final Duration REBOOT_AFTER = Duration.ofHours(24);
    /** Local log times against UTC event times: the largest time-zone offset. */
    static final Duration ZONE_SLACK = Duration.ofHours(14);

    private static final Pattern STAMP = Pattern.compile("\\b(\\d{4})[-/](\\d{2})[-/](\\d{2})[ T](\\d{2}):(\\d{2}):(\\d{2})");
    private static final Pattern EXE = Pattern.compile("(?i)\\b([\\w.-]+\\.exe)\\b");
    private static final Pattern MODULE = Pattern.compile("(?i)\\b([\\w.-]+\\.(?:dll|pyd|so(?:\\.[0-9.]+)?))\\b");
    private static final Pattern GPU_PROVIDER = Pattern.compile("(?i)nvlddmkm|^display$|amdkmdag|igfx|dxgkrnl|WHEA|nvidia");
    private static final Pattern SYSTEM_PROVIDER = Pattern.compile("(?i)Kernel-Power|BugCheck|volmgr|EventLog");

    /** The bundle split: what may be evidence, and the Windows events set aside. */
    record Split(DiagnosisInput relevant, List<SourceRef> other, int otherCount) {}

    private RelevantEvents() {}

    static Split split(DiagnosisInput input) {
        boolean anyWindows = input.facts().stream().anyMatch(f -> f instanceof WindowsFact);
        if (!anyWindows) {
            return new Split(input, List.of(), 0);
        }
        // what the rest of the bundle says about the job: the artifacts that are not event logs nor GPU snapshots
        Set<String> notJob = new HashSet<>();
        for (Fact f : input.facts()) {
            if (f instanceof WindowsFact) {
                f.sources().forEach(s -> notJob.add(s.artifact()));
            }
        }
        // a GPU snapshot lists the programs on the machine's GPUs (a desktop's explorer.exe, dwm.exe): not the job's
        notJob.addAll(GpuSnapshots.artifacts(input.facts()));
        Set<String> processes = new HashSet<>();
        Set<String> modules = new HashSet<>();
        Instant crash = null;
        boolean crashLocal = true;
        List<String> jobText = new ArrayList<>();
        for (TextLine l : input.lines()) {
            if (!notJob.contains(l.artifact())) {
                jobText.add(l.text());
            }
        }
        for (Fact f : input.facts()) {
            if (!(f instanceof WindowsFact)) {
                f.sources().stream().filter(s -> !notJob.contains(s.artifact())).forEach(s -> jobText.add(s.text()));
            }
        }
        for (String t : jobText) {
            Matcher m = EXE.matcher(t);
            while (m.find()) {
                processes.add(m.group(1).toLowerCase(Locale.ROOT));
            }
            m = MODULE.matcher(t);
            while (m.find()) {
                modules.add(m.group(1).toLowerCase(Locale.ROOT));
            }
            if (t.toLowerCase(Locale.ROOT).contains("python")) {
                processes.add("python.exe");
                processes.add("pythonw.exe");
            }
            Instant when = stamp(t);
            if (when != null && (crash == null || when.isAfter(crash))) {
                crash = when;
            }
        }
        // the events by the line their record starts on, per file: a typed fact belongs to the record at or above its
        // line (an .evtx record's typed facts share its line; a text export's cite the description line below the header)
        Map<String, java.util.TreeMap<Long, WindowsEvent>> byLine = new HashMap<>();
        for (Fact f : input.facts()) {
            if (f instanceof WindowsEvent e) {
                e.sources().forEach(s -> byLine.computeIfAbsent(s.artifact(), k -> new java.util.TreeMap<>()).put(s.line(), e));
            }
        }
        List<Fact> keep = new ArrayList<>();
        List<SourceRef> other = new ArrayList<>();
        int otherCount = 0;
        for (Fact f : input.facts()) {
            if (!(f instanceof WindowsFact) || belongs(f, byLine, processes, modules, crash)) {
                keep.add(f);
            } else if (f instanceof WindowsEvent) {
                otherCount++;
                if (other.size() < 20 && !f.sources().isEmpty()) {
                    other.add(f.sources().getFirst());
                }
            }
        }
        return new Split(new DiagnosisInput(keep, input.lines()), other, otherCount);
    }

    private static boolean belongs(Fact f, Map<String, java.util.TreeMap<Long, WindowsEvent>> byLine, Set<String> processes,
            Set<String> modules, Instant crash) {
        WindowsEvent e = f instanceof WindowsEvent w ? w
                : f.sources().stream().map(s -> {
                    java.util.TreeMap<Long, WindowsEvent> events = byLine.get(s.artifact());
                    Map.Entry<Long, WindowsEvent> at = events == null ? null : events.floorEntry(s.line());
                    return at == null ? null : at.getValue();
                }).filter(x -> x != null).findFirst().orElse(null);
        String provider = e == null || e.provider() == null ? "" : e.provider();
        Instant when = e == null ? null : eventTime(e.time());
        boolean gpu = f instanceof DisplayDriverEvent || f instanceof WheaEvent || GPU_PROVIDER.matcher(provider).find();
        boolean system = f instanceof KernelPowerEvent || f instanceof BugCheckEvent || SYSTEM_PROVIDER.matcher(provider).find();
        if (gpu || system) {
            if (crash == null || when == null) {
                return gpu;
            }
            boolean utcEvent = e.time() != null && e.time().endsWith("Z");
            Duration slack = utcEvent ? ZONE_SLACK.plus(NEAR) : NEAR;
            Instant from = crash.minus(slack);
            Instant to = crash.plus(slack).plus(system ? REBOOT_AFTER : Duration.ZERO);
            return !when.isBefore(from) && !when.isAfter(to);
        }
        // an application's crash, hang or error report: only this job's
        String app = null;
        String module = null;
        if (f instanceof ApplicationFault a) {
            app = a.application();
            module = a.module();
        } else if (f instanceof WerReport w) {
            app = w.application();
        }
        String text = e == null ? "" : (e.data().values() + " " + (e.message() == null ? "" : e.message())).toLowerCase(Locale.ROOT);
        if (app != null) {
            if (processes.contains(base(app))) {
                return true;
            }
        } else if (processes.stream().anyMatch(p -> text.contains(p))) {
            return true;
        }
        if (module != null && modules.contains(base(module))) {
            return app == null || processes.isEmpty();
        }
        return false;
    }

    private static String base(String path) {
        String p = path.strip().toLowerCase(Locale.ROOT);
        int slash = Math.max(p.lastIndexOf('\\'), p.lastIndexOf('/'));
        return slash >= 0 ? p.substring(slash + 1) : p;
    }

    /** The latest time stamp a log line starts its record with (read as UTC; the caller allows for the zone). */
    static Instant stamp(String line) {
        Matcher m = STAMP.matcher(line);
        if (!m.find() || m.start() > 40) {
            return null;
        }
        try {
            return LocalDateTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)), Integer.parseInt(m.group(6))).toInstant(ZoneOffset.UTC);
        } catch (java.time.DateTimeException e) {
            return null;
        }
    }

    private static Instant eventTime(String time) {
        if (time == null || time.isBlank()) {
            return null;
        }
        try {
            return time.endsWith("Z") ? Instant.parse(time) : LocalDateTime.parse(time.length() > 19 ? time.substring(0, 19) : time)
                    .toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return stamp(time);
        }
    }
}
