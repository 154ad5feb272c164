package dev.crashlab.crashes;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuLost;
import dev.crashlab.fact.HostOomKill;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.LogLine;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.StatusCode;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.fact.XidEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a crash bundle can share with earlier ones: its {@link SignatureTerm}s (from its facts and its likely cause),
 * the text that full-text search over past crashes reads (error lines, exceptions, file names), and its group
 * signature ({@link GroupSignature}: which failure it is).
 *
 * <p>NOTE: built from facts and the diagnosis only, never from raw text, so that two uploads of the same crash
 * written by different tools (a console log and an Event Viewer export) meet on the same terms. Facts read only
 * from informational lines and Windows events the diagnosis set aside are left out of the terms and the group.
 * A stored signature whose {@code version} is older than {@link #VERSION} is computed again.
 *
 * @param version the {@link GroupSignature#VERSION} it was made with (0 when stored before versions)
 * @param terms distinct by key, in the order found
 * @param text one passage per line, at most {@link #MAX_TEXT} characters
 * @param group the group signature's parts (empty: the crash joins no group)
 * @param notes what each group signature rule did
 */
public record CrashSignature(int version, List<SignatureTerm> terms, String text, List<String> group, List<String> notes) {

    /** The version signatures are made with now. */
    public static final int VERSION = GroupSignature.VERSION;

    /** The most characters of searchable text kept per bundle. */
    public static final int MAX_TEXT = 16_384;
    /** The most terms kept per bundle (a log with thousands of errors keeps its first ones). */
    public static final int MAX_TERMS = 100;
    /** The most characters of a term's label. */
    public static final int MAX_LABEL = 200;
    /** Components whose major.minor version is part of the setting a crash happened in. */
    static final Set<String> VERSIONED = Set.of("tensorflow", "tensorflow-gpu", "torch", "keras", "jax", "cuda-runtime",
            "cuda-toolkit", "cudnn", "nvidia-driver", "python");

    public CrashSignature {
        terms = List.copyOf(terms);
        text = text == null ? "" : text;
        group = group == null ? List.of() : List.copyOf(group);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** A signature of the current version with these terms and text, in no group (tests, synthetic crashes). */
    public CrashSignature(List<SignatureTerm> terms, String text) {
        this(VERSION, terms, text, List.of(), List.of());
    }

    /** This signature with other terms and text, its version and group kept. */
    public CrashSignature with(List<SignatureTerm> newTerms, String newText) {
        return new CrashSignature(version, newTerms, newText, group, notes);
    }

    /** Whether it was made by an older version of the rules (and must be computed again). */
    public boolean stale() {
        return version < VERSION;
    }

    /** The signature of a bundle named {@code name} with these files, facts and diagnosis ({@code null} if none). */
    public static CrashSignature of(String name, List<String> paths, List<Fact> facts, Diagnosis diagnosis) {
        return of(name, paths, facts, diagnosis, null, null);
    }

    /**
     * The signature of a bundle whose cause was confirmed as the KB article {@code confirmedId} (titled
     * {@code confirmedTitle}): that cause replaces the diagnosis' top one. Null for an unconfirmed bundle.
     */
    public static CrashSignature of(String name, List<String> paths, List<Fact> facts, Diagnosis diagnosis,
                                    String confirmedId, String confirmedTitle) {
        Map<String, SignatureTerm> terms = new LinkedHashMap<>();
        List<String> text = new ArrayList<>();
        text.add(name);
        text.addAll(paths);
        if (confirmedId != null) {
            add(terms, "cause", confirmedId, confirmedTitle == null ? confirmedId : confirmedTitle, true);
        } else if (diagnosis != null) {
            Hypothesis top = topCause(diagnosis);
            if (top != null) {
                add(terms, "cause", top.id(), top.title(), true);
            }
            if (diagnosis.verdict() == Diagnosis.Verdict.WEAK && !diagnosis.hypotheses().isEmpty()) {
                // a weak verdict is not "no likely cause": its best guess, marked as one (not specific: a guess
                // does not make two crashes alike)
                Hypothesis guess = diagnosis.hypotheses().get(0);
                add(terms, "verdict", "weak", "weak evidence", false);
                add(terms, "guess", guess.id(), guess.title(), false);
            }
        }
        GroupSignature.Result group = GroupSignature.of(facts, diagnosis);
        List<String> setting = new ArrayList<>(); // lines about the machine: searchable, after the crash's own lines
        for (Fact f : group.kept()) { // (neither other bundles' confirmations, set-aside events nor INFO lines)
            int before = terms.size();
            switch (f) {
                case ExitStatus e -> {
                    if (e.hex() == null && e.statusKind() == ExitStatus.Kind.SIGNAL && e.name() != null) {
                        // a signal by its name (exit:SIGABRT), not its number: "6" reads as a plain exit code
                        add(terms, "exit", e.name(), e.name() + " (signal " + (e.code() > 128 ? e.code() - 128 : Math.abs(e.code())) + ")", true);
                    } else {
                        String code = e.hex() != null ? e.hex() : Long.toString(e.code());
                        add(terms, "exit", code, "exit code " + code + (e.name() != null ? " (" + e.name() + ")" : ""), true);
                    }
                }
                case StatusCode s -> add(terms, "status", s.name(), s.name(), true);
                case LibraryLoadFailure l -> {
                    String lib = baseName(l.library());
                    add(terms, "lib", lib, "cannot load " + lib, true);
                }
                case PythonException p -> {
                    add(terms, "exception", p.type(), p.type(), true);
                    text.add(p.type() + ": " + (p.message() == null ? "" : p.message()));
                }
                case ApplicationFault a -> {
                    add(terms, "module", a.module(), "faulting module " + a.module(), true);
                    add(terms, "exit", a.exceptionCode(), "exit code " + a.exceptionCode(), true);
                    text.add("Application Error: " + a.application() + " module " + a.module() + " exception " + a.exceptionCode());
                }
                case XidEvent x -> add(terms, "xid", Integer.toString(x.code()),
                        "Xid " + x.code() + (x.mnemonic() != null ? " (" + x.mnemonic() + ")" : ""), true);
                case GpuLost g -> add(terms, "gpu-lost", "yes", "the GPU fell off the bus", true);
                case HostOomKill h -> add(terms, "oom", "host", "host out of memory", true);
                case MemoryShortage m -> add(terms, "oom", m.where() == null ? "unknown" : m.where(),
                        "out of memory" + (m.where() != null ? " (" + m.where() + ")" : ""), true);
                case DisplayDriverEvent d -> add(terms, "display", d.eventId() == null ? null : d.eventId().toString(),
                        "display driver event " + d.eventId() + (Boolean.TRUE.equals(d.recovered()) ? " (recovered)" : ""), true);
                case WheaEvent w -> add(terms, "whea", w.eventId() == null ? null : w.eventId().toString(),
                        "WHEA hardware error " + w.eventId(), true);
                case BugCheckEvent b -> add(terms, "bugcheck", b.code(), "bug check " + b.code(), true);
                case KernelPowerEvent k -> add(terms, "kernel-power", "41", "Kernel-Power 41 (the machine lost power)", true);
                case GpuDevice g -> {
                    add(terms, "gpu", g.name(), g.name(), false);
                    String driver = majorMinor(g.driverVersion()); // nvidia-smi says the driver in each GPU's header
                    add(terms, "nvidia-driver", driver, "nvidia-driver " + driver, false);
                }
                case VersionFact v -> {
                    String mm = majorMinor(v.version());
                    if (v.component() != null && VERSIONED.contains(v.component())) {
                        add(terms, v.component(), mm, v.component() + " " + mm, false);
                    }
                }
                case Platform p -> add(terms, "os", p.osFamily(), p.osFamily(), false);
                case LogLine l -> {
                    if (l.severity() != LogLine.Severity.WARNING) {
                        text.add(l.message());
                    }
                }
                default -> { } // a replay outcome is a lab result, not something the reporter saw; the rest is detail
            }
            if (!f.sources().isEmpty() && !(f instanceof LogLine)) {
                boolean specific = terms.size() > before && terms.values().stream().skip(before).anyMatch(SignatureTerm::specific);
                (specific ? text : setting).add(f.sources().getFirst().text());
            }
        }
        text.addAll(setting);
        return new CrashSignature(VERSION, List.copyOf(terms.values()), capped(text), group.parts(), group.notes());
    }

    /**
     * The group this crash joins: a hash of its group signature ({@link GroupSignature}), so crashes that failed the
     * same way meet whatever their setting; null for a crash with no decisive part, or a signature of an older
     * version (it is computed again).
     */
    public String groupKey() {
        return stale() ? null : GroupSignature.key(group);
    }

    /** How the UI names the group: its signature's parts, from the crash's decisive lines. */
    public String groupLabel() {
        String label = String.join(" · ", group);
        return label.length() > 2 * MAX_LABEL ? label.substring(0, 2 * MAX_LABEL) + " …" : label;
    }

    /** The likely cause worth sharing: the first hypothesis with specific evidence, or null. */
    static Hypothesis topCause(Diagnosis d) {
        // only the first counts: a lower one is not "the" cause
        Hypothesis first = d.hypotheses().isEmpty() ? null : d.hypotheses().get(0);
        return first != null && first.evidence().stream().anyMatch(e -> e.specific()) ? first : null;
    }

    private static void add(Map<String, SignatureTerm> terms, SignatureTerm t) {
        if (terms.size() < MAX_TERMS) {
            terms.putIfAbsent(t.key(), t);
        }
    }

    // A term of this kind; none when the fact left the value out.
    private static void add(Map<String, SignatureTerm> terms, String kind, String value, String label, boolean specific) {
        if (value != null && !value.isBlank()) {
            add(terms, new SignatureTerm(kind + ":" + value, label.length() > MAX_LABEL ? label.substring(0, MAX_LABEL) : label, specific));
        }
    }

    static String baseName(String library) {
        if (library == null) {
            return null;
        }
        String s = library.strip();
        int slash = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
        return slash >= 0 ? s.substring(slash + 1) : s;
    }

    /** {@code 2.10} of {@code 2.10.1}; null when the version has no major.minor. */
    static String majorMinor(String version) {
        if (version == null) {
            return null;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v?(\\d+)(?:\\.(\\d+))?").matcher(version.strip());
        if (!m.find()) {
            return null;
        }
        return m.group(2) == null ? m.group(1) : m.group(1) + "." + m.group(2);
    }

    private static String capped(List<String> lines) {
        StringBuilder sb = new StringBuilder();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String line : lines) {
            if (line == null) {
                continue;
            }
            String l = line.strip().replaceAll("\\s+", " ");
            if (l.isEmpty() || !seen.add(l)) {
                continue;
            }
            if (sb.length() + l.length() + 2 > MAX_TEXT) {
                break;
            }
            sb.append(l).append("\n\n");
        }
        return sb.toString().strip();
    }
}
