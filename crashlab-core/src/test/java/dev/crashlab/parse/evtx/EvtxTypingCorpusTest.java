package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.WerReport;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.parse.winevent.WindowsEventTyping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Counts how many of the crash-relevant records that libevtx's {@code evtxexport} lists in
 * {@code ../shared/corpus/evtx/reference} become typed facts when our reader and {@link WindowsEventTyping} read
 * the same {@code .evtx} files (issue 11, acceptance 3: at least 90 %).
 *
 * <p>Crash-relevant: Application Error 1000, Windows Error Reporting 1001, Application Hang 1002 (Application
 * log) and Kernel-Power 41, BugCheck 1001, WHEA-Logger (System log). A record counts as typed only when the fact
 * agrees with evtxexport's strings for it: the application name (string 1) of a crash or hang, the exception code
 * (string 7) of a crash, the event name (string 3) of a WER report.
 */
class EvtxTypingCorpusTest {

    /** One record as evtxexport printed it. */
    record Reference(long number, String source, int eventId, List<String> strings) {
        String string(int i) {
            return i <= strings.size() ? strings.get(i - 1) : "";
        }
    }

    /** What kind of typed fact a reference record must become, or null when it is not crash-relevant. */
    static Class<? extends Fact> expected(Reference r) {
        return switch (r.source + "/" + r.eventId) {
            case "Application Error/1000", "Application Hang/1002" -> ApplicationFault.class;
            case "Windows Error Reporting/1001" -> WerReport.class;
            case "Microsoft-Windows-Kernel-Power/41" -> KernelPowerEvent.class;
            case "BugCheck/1001", "Microsoft-Windows-WER-SystemErrorReporting/1001" -> BugCheckEvent.class;
            default -> r.source.equals("Microsoft-Windows-WHEA-Logger") ? WheaEvent.class : null;
        };
    }

    @Test
    void atLeastNinetyPercentOfCrashRelevantRecordsBecomeTypedFacts() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(EvtxCorpusTest.REFERENCE), "../shared/corpus not present: corpus tests skipped");
        Map<String, int[]> perKind = new TreeMap<>();
        List<String> misses = new ArrayList<>();
        int relevant = 0;
        int typed = 0;
        for (String name : EvtxCorpusTest.files()) {
            Path dump = EvtxCorpusTest.REFERENCE.resolve(name + ".evtxexport.txt.gz");
            if (!Files.exists(dump)) {
                continue;
            }
            List<Reference> wanted = references(dump).stream().filter(r -> expected(r) != null).toList();
            if (wanted.isEmpty()) {
                continue;
            }
            Map<Long, List<Fact>> ours = typedByRecordNumber(EvtxCorpusTest.CORPUS.resolve(name + ".evtx"));
            for (Reference r : wanted) {
                relevant++;
                String kind = r.source + " " + r.eventId;
                int[] counts = perKind.computeIfAbsent(kind, k -> new int[2]);
                counts[1]++;
                List<Fact> facts = ours.getOrDefault(r.number, List.of());
                String why = agrees(r, facts);
                if (why == null) {
                    typed++;
                    counts[0]++;
                } else {
                    misses.add(name + " #" + r.number + " " + kind + ": " + why);
                }
            }
        }
        perKind.forEach((k, c) -> System.out.printf(Locale.ROOT, "typed %-40s %3d of %3d%n", k, c[0], c[1]));
        System.out.printf(Locale.ROOT, "typed in all: %d of %d crash-relevant records evtxexport lists%n", typed, relevant);
        assertThat(perKind.keySet()).as("the reference dumps hold every crash-relevant kind")
                .contains("Application Error 1000", "Windows Error Reporting 1001", "Application Hang 1002",
                        "Microsoft-Windows-Kernel-Power 41");
        assertThat(typed * 100).as("typed %d of %d; misses: %s", typed, relevant, misses.stream().limit(20).toList())
                .isGreaterThanOrEqualTo(relevant * 90);
    }

    /** Returns null when a fact of the expected kind agrees with the reference record, else why not. */
    static String agrees(Reference r, List<Fact> facts) {
        Class<? extends Fact> kind = expected(r);
        Fact f = facts.stream().filter(kind::isInstance).findFirst().orElse(null);
        if (f == null) {
            return facts.isEmpty() ? "no typed fact (or record not read)" : "typed as " + facts;
        }
        if (f instanceof ApplicationFault a) {
            if (!r.string(1).equalsIgnoreCase(a.application() == null ? "" : a.application())) {
                return "application " + a.application() + " but evtxexport says " + r.string(1);
            }
            if (r.eventId == 1000 && (a.exceptionCode() == null
                    || !a.exceptionCode().endsWith(r.string(7).toLowerCase(Locale.ROOT).replaceFirst("^0x", "")))) {
                return "exception code " + a.exceptionCode() + " but evtxexport says " + r.string(7);
            }
        }
        if (f instanceof WerReport w && !r.string(3).equals(w.eventName() == null ? "" : w.eventName())) {
            return "event name " + w.eventName() + " but evtxexport says " + r.string(3);
        }
        return null;
    }

    /** Reads a file as {@link EvtxParser} does, keyed by the record number evtxexport prints as "Event number". */
    static Map<Long, List<Fact>> typedByRecordNumber(Path file) throws IOException {
        Map<Long, List<Fact>> out = new HashMap<>();
        try (EvtxReader reader = EvtxReader.open(file, p -> { })) {
            while (reader.hasNext()) {
                EvtxRecord r = reader.next();
                out.computeIfAbsent(r.fileRecordNumber(), k -> new ArrayList<>())
                        .addAll(WindowsEventTyping.typed(EvtxParser.event(r, file.getFileName().toString())));
            }
        }
        return out;
    }

    /** Reads evtxexport's text dump (gunzipped on the fly) into records; a string's continuation lines are joined. */
    static List<Reference> references(Path dump) throws IOException {
        List<Reference> out = new ArrayList<>();
        Map<String, String> fields = new LinkedHashMap<>();
        List<String> strings = new ArrayList<>();
        Long number = null;
        for (String line : (EvtxCorpusTest.gunzip(dump) + "\nEvent number\t\t\t: 0\n").split("\n")) {
            if (line.startsWith("Event number")) {
                if (number != null && number > 0) {
                    out.add(new Reference(number, fields.getOrDefault("Source name", ""),
                            eventId(fields.getOrDefault("Event identifier", "")), List.copyOf(strings)));
                }
                number = Long.parseLong(line.replaceAll("\\D", ""));
                fields.clear();
                strings.clear();
            } else if (line.startsWith("String: ")) {
                int colon = line.indexOf(':', 8);
                strings.add(colon < 0 ? "" : line.substring(colon + 1).strip());
            } else if (line.contains("\t: ") && !line.startsWith("\\")) {
                int colon = line.indexOf("\t: ");
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 3).strip());
            } else if (!strings.isEmpty() && !line.isBlank()) {
                int last = strings.size() - 1;
                strings.set(last, strings.get(last) + "\n" + line);
            }
        }
        return out;
    }

    // "0x000003e8 (1000)"
    private static int eventId(String s) {
        int open = s.indexOf('(');
        int close = s.indexOf(')', open + 1);
        return open < 0 || close < 0 ? -1 : Integer.parseInt(s.substring(open + 1, close).strip());
    }
}
