package dev.crashlab.crashes;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuLost;
import dev.crashlab.fact.HostOomKill;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.LogLine;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.StatusCode;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.fact.XidEvent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.stream.Collectors;

/**
 * Which failure a crash is: its group signature, made from the crash's own decisive lines (the exception it died
 * with, the status codes and libraries it names, the native events and exit status) by one ordered list of rules,
 * in the manner of Socorro's signature generation and Sentry's grouping.
 *
 * <p>NOTE: each rule is a predicate and an action; it adds parts, drops facts the later rules must not see, and
 * says what it did in a note. A rule that throws becomes a note and the rest go on. The parts, in rule order, are
 * the signature: two crashes are one group when their parts are equal. Raise {@link #VERSION} whenever a rule or a
 * list changes what a crash's parts are: stored signatures of an older version are computed again.
 */
public final class GroupSignature {

    /**
     * The version of the rules. 1 was the set of specific terms (codes, libraries, exception types, events); 2 is
     * this pipeline; 3 names a signal exit by its signal ({@code exit:SIGABRT}, not {@code 6}) and marks a weak
     * verdict's best guess, so signatures stored before are computed again.
     */
    public static final int VERSION = 3;
    /** The most characters of a message part. */
    static final int MAX_MESSAGE = 120;
    /** The most characters of a message read (the rest cannot change the part). */
    private static final int MAX_READ = 400;
    /** The most status codes or libraries one part list keeps. */
    static final int MAX_EACH = 3;

    /**
     * One part of a signature.
     *
     * @param rule the rule that added it
     * @param text how it reads in the group's label
     * @param generic whether it is too generic to make a group alone (an abort, a power loss)
     */
    record Part(String rule, String text, boolean generic) {}

    /**
     * What the rules of one crash work on.
     *
     * @param facts the facts still considered (rules drop some)
     * @param setAside the Windows events the diagnosis set aside, as {@code artifact:line}
     * @param parts the signature so far
     * @param notes what each rule did
     */
    record Work(List<Fact> facts, Set<String> setAside, List<Part> parts, List<String> notes, SignatureLists lists) {

        <T extends Fact> List<T> all(Class<T> type) {
            return facts.stream().filter(type::isInstance).map(type::cast).toList();
        }

        boolean has(String rule) {
            return parts.stream().anyMatch(p -> p.rule().equals(rule));
        }

        void add(String rule, String text, boolean generic) {
            parts.add(new Part(rule, text, generic));
            notes.add(rule + ": added \"" + text + "\"" + (generic ? " (generic)" : ""));
        }
    }

    /** One rule: when it applies, and what it does. */
    interface Rule {
        /** Its name in notes. */
        String name();

        /** Whether it has anything to do for this crash. */
        boolean applies(Work w);

        /** Does it, adding parts and notes. */
        void apply(Work w);
    }

    /**
     * The signature of a crash.
     *
     * @param parts the decisive parts, in rule order; empty when the crash has none that could make a group
     * @param notes what each rule did
     * @param kept the facts left once the set-aside events and informational lines are dropped
     */
    public record Result(List<String> parts, List<String> notes, List<Fact> kept) {
        public Result {
            parts = List.copyOf(parts);
            notes = List.copyOf(notes);
            kept = List.copyOf(kept);
        }

        /** The group key: a hash of the version and the parts; null when there are no parts. */
        public String key() {
            return GroupSignature.key(parts);
        }
    }

    private GroupSignature() {}

    /** The rules, in the order they run. */
    static final List<Rule> RULES = List.of(
            new SetAsideEvents(),
            new InformationalLines(),
            new FinalException(),
            new FatalLogLine(),
            new StatusCodes(),
            new LibraryLoads(),
            new LibraryAgainstInstalled(),
            new NativeEvents(),
            new ExitStatusRule(),
            new DecisiveFrame(),
            new TooGeneric());

    /** The group signature of a crash with these facts and diagnosis ({@code null} if none). */
    public static Result of(List<Fact> facts, Diagnosis diagnosis) {
        return run(RULES, facts, diagnosis == null ? List.of() : diagnosis.otherEvents(), SignatureLists.shipped());
    }

    /** Runs {@code rules} over the facts; {@code setAsideEvents} are the source lines of the events the diagnosis set aside. */
    static Result run(List<Rule> rules, List<Fact> facts, List<SourceRef> setAsideEvents, SignatureLists lists) {
        Set<String> setAside = new HashSet<>();
        setAsideEvents.forEach(s -> setAside.add(where(s)));
        List<Fact> kept = new ArrayList<>();
        for (Fact f : facts) {
            if (!(f instanceof dev.crashlab.fact.ConfirmedCrash)) { // another bundle's confirmation, not this crash
                kept.add(f);
            }
        }
        Work w = new Work(kept, setAside, new ArrayList<>(), new ArrayList<>(), lists);
        for (Rule r : rules) {
            try {
                if (r.applies(w)) {
                    r.apply(w);
                }
            } catch (RuntimeException e) {
                w.notes().add(r.name() + ": failed (" + e + "); the other rules went on");
            }
        }
        return new Result(w.parts().stream().map(Part::text).toList(), w.notes(), w.facts());
    }

    /** The key of these parts: a hash of the version and the parts; null when there are none. */
    static String key(List<String> parts) {
        if (parts.isEmpty()) {
            return null;
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(("v" + VERSION + "\n" + String.join("\n", parts))
                    .toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String where(SourceRef s) {
        return s.artifact() + ":" + s.line();
    }

    /** A message without what changes between runs (addresses, sizes, paths, ids), at most {@link #MAX_MESSAGE} characters. */
    static String normalize(String message, SignatureLists lists) {
        if (message == null) {
            return "";
        }
        String s = message.length() > MAX_READ ? message.substring(0, MAX_READ) : message;
        for (SignatureLists.Normalizer n : lists.normalizers()) {
            s = n.pattern().matcher(s).replaceAll(Matcher.quoteReplacement(n.replacement()));
        }
        s = s.replaceAll("\\s+", " ").strip();
        if (s.length() > MAX_MESSAGE) {
            int cut = s.lastIndexOf(' ', MAX_MESSAGE);
            s = s.substring(0, cut > MAX_MESSAGE / 2 ? cut : MAX_MESSAGE) + " …";
        }
        return s;
    }

    /** {@code RuntimeError} of {@code torch.RuntimeError}: modules move between versions, the type stays. */
    static String shortType(String type) {
        String t = type == null ? "" : type.strip();
        int dot = t.lastIndexOf('.');
        return dot >= 0 ? t.substring(dot + 1) : t;
    }

    private static String summary(List<? extends Fact> dropped) {
        return dropped.stream().map(f -> f.getClass().getSimpleName()).distinct().collect(Collectors.joining(", "));
    }

    /**
     * Drops the Windows events the diagnosis set aside (other programs' crashes, reboots far from the crash): the
     * TDR group was once named after a Kernel-Power event its own report had set aside.
     */
    static final class SetAsideEvents implements Rule {
        @Override
        public String name() {
            return "set-aside-events";
        }

        @Override
        public boolean applies(Work w) {
            return !w.setAside().isEmpty();
        }

        @Override
        public void apply(Work w) {
            List<Fact> dropped = w.facts().stream()
                    .filter(f -> f.sources().stream().anyMatch(s -> w.setAside().contains(where(s)))).toList();
            if (!dropped.isEmpty()) {
                w.facts().removeAll(dropped);
                w.notes().add(name() + ": left out " + dropped.size() + " fact(s) of events the diagnosis set aside ("
                        + summary(dropped) + ")");
            }
        }
    }

    /**
     * Drops facts read only from informational lines: NCCL logs "cannot load libnccl-net.so" at INFO level on
     * every healthy start (it then uses its internal transport), and a group was named after it.
     */
    static final class InformationalLines implements Rule {
        @Override
        public String name() {
            return "informational-lines";
        }

        @Override
        public boolean applies(Work w) {
            return true;
        }

        @Override
        public void apply(Work w) {
            Predicate<SourceRef> informational = s -> w.lists().informationalLines().stream()
                    .anyMatch(p -> p.matcher(s.text()).find());
            List<Fact> dropped = w.facts().stream()
                    .filter(f -> !f.sources().isEmpty() && f.sources().stream().allMatch(informational)).toList();
            if (!dropped.isEmpty()) {
                w.facts().removeAll(dropped);
                w.notes().add(name() + ": left out " + dropped.size() + " fact(s) read only from informational lines ("
                        + summary(dropped) + ")");
            }
        }
    }

    /**
     * The exception the program died with, type and normalized message: "RuntimeError" alone once put an NCCL
     * failure, a full /dev/shm and a too-old driver in one group; their messages tell them apart. The last
     * exception of a chain is the one that ended the program, unless it only carries another's failure.
     */
    static final class FinalException implements Rule {
        @Override
        public String name() {
            return "final-exception";
        }

        @Override
        public boolean applies(Work w) {
            return !w.all(PythonException.class).isEmpty();
        }

        @Override
        public void apply(Work w) {
            List<PythonException> all = w.all(PythonException.class);
            PythonException chosen = all.getLast();
            for (int i = all.size() - 1; i >= 0; i--) {
                if (!w.lists().wrapperExceptions().contains(shortType(all.get(i).type()))) {
                    chosen = all.get(i);
                    break;
                }
            }
            if (chosen != all.getLast()) {
                w.notes().add(name() + ": passed over the wrapper " + shortType(all.getLast().type()));
            }
            String message = normalize(chosen.message(), w.lists());
            w.add(name(), shortType(chosen.type()) + (message.isEmpty() ? "" : ": " + message), false);
        }
    }

    /**
     * Without an exception, the first fatal line the framework logged (else its first error line): a TensorFlow
     * {@code F ... Check failed:} or a glibc abort is the crash point of a log with no traceback.
     */
    static final class FatalLogLine implements Rule {
        @Override
        public String name() {
            return "fatal-log-line";
        }

        @Override
        public boolean applies(Work w) {
            return !w.has("final-exception")
                    && w.all(LogLine.class).stream().anyMatch(l -> l.severity() != LogLine.Severity.WARNING);
        }

        @Override
        public void apply(Work w) {
            List<LogLine> lines = w.all(LogLine.class);
            LogLine chosen = lines.stream().filter(l -> l.severity() == LogLine.Severity.FATAL).findFirst()
                    .orElseGet(() -> lines.stream().filter(l -> l.severity() == LogLine.Severity.ERROR).findFirst().orElseThrow());
            String message = normalize(chosen.message(), w.lists());
            if (!message.isEmpty()) {
                w.add(name(), message, false);
            }
        }
    }

    /** The status codes the crash names (CUDA, cuDNN, cuBLAS, NCCL), sorted: they say what the library reported. */
    static final class StatusCodes implements Rule {
        @Override
        public String name() {
            return "status-codes";
        }

        @Override
        public boolean applies(Work w) {
            return !w.all(StatusCode.class).isEmpty();
        }

        @Override
        public void apply(Work w) {
            TreeSet<String> names = new TreeSet<>();
            w.all(StatusCode.class).forEach(s -> names.add(s.name()));
            w.add(name(), names.stream().limit(MAX_EACH).collect(Collectors.joining(", ")), false);
        }
    }

    /** The libraries that would not load, by file name, sorted: a missing cuDNN DLL is another failure than a missing cuBLAS. */
    static final class LibraryLoads implements Rule {
        @Override
        public String name() {
            return "library-loads";
        }

        @Override
        public boolean applies(Work w) {
            return !w.all(LibraryLoadFailure.class).isEmpty();
        }

        @Override
        public void apply(Work w) {
            TreeSet<String> libs = new TreeSet<>();
            w.all(LibraryLoadFailure.class).forEach(l -> {
                String b = CrashSignature.baseName(l.library());
                if (b != null && !b.isBlank()) {
                    libs.add(b);
                }
            });
            if (!libs.isEmpty()) {
                w.add(name(), "cannot load " + libs.stream().limit(MAX_EACH).collect(Collectors.joining(", ")), false);
            }
        }
    }

    /**
     * A library of one major version that would not load while the listing installs another: the same "cannot load
     * libcudnn_ops_infer.so.8" is a missing library on one machine and cuDNN 9 installed in place of 8 on another.
     */
    static final class LibraryAgainstInstalled implements Rule {
        @Override
        public String name() {
            return "library-against-installed";
        }

        @Override
        public boolean applies(Work w) {
            return !w.all(LibraryLoadFailure.class).isEmpty() && !w.all(VersionFact.class).isEmpty();
        }

        @Override
        public void apply(Work w) {
            TreeSet<String> found = new TreeSet<>();
            for (LibraryLoadFailure l : w.all(LibraryLoadFailure.class)) {
                String lib = CrashSignature.baseName(l.library());
                for (SignatureLists.LibraryComponent c : w.lists().libraryComponents()) {
                    Matcher m = lib == null ? null : c.library().matcher(lib);
                    if (m == null || !m.find()) {
                        continue;
                    }
                    String wanted = m.group(1);
                    Set<String> lines = l.sources().stream().map(GroupSignature::where).collect(Collectors.toSet());
                    for (VersionFact v : w.all(VersionFact.class)) {
                        // a version read from the failing line itself (the library's own name) is not what is installed
                        if (!c.component().equals(v.component()) || v.sources().stream().anyMatch(s -> lines.contains(where(s)))) {
                            continue;
                        }
                        String major = CrashSignature.majorMinor(v.version());
                        major = major == null ? null : major.replaceFirst("\\..*", "");
                        if (major != null && !major.equals(wanted)) {
                            found.add(c.component() + " " + major + " installed, not " + wanted);
                        }
                    }
                }
            }
            found.stream().limit(MAX_EACH).forEach(t -> w.add(name(), t, false));
        }
    }

    /** GPU, driver, memory and Windows events of the crash (Xid, GPU lost, TDR, WHEA, bug check, faulting module, OOM). */
    static final class NativeEvents implements Rule {
        @Override
        public String name() {
            return "native-events";
        }

        @Override
        public boolean applies(Work w) {
            return true;
        }

        @Override
        public void apply(Work w) {
            TreeSet<String> specific = new TreeSet<>();
            TreeSet<String> generic = new TreeSet<>();
            for (Fact f : w.facts()) {
                switch (f) {
                    case XidEvent x -> specific.add("Xid " + x.code());
                    case GpuLost g -> specific.add("GPU fell off the bus");
                    case BugCheckEvent b -> specific.add("bug check " + b.code());
                    case DisplayDriverEvent d -> specific.add("display driver event " + d.eventId());
                    case WheaEvent e -> specific.add("WHEA hardware error " + e.eventId());
                    case ApplicationFault a -> specific.add("faulting module " + a.module() + " (" + a.exceptionCode() + ")");
                    case HostOomKill h -> specific.add("killed for host memory");
                    case MemoryShortage m -> specific.add("out of memory" + (m.where() != null ? " (" + m.where() + ")" : ""));
                    case KernelPowerEvent k -> generic.add("Kernel-Power 41");
                    default -> { }
                }
            }
            specific.forEach(t -> w.add(name(), t, false));
            generic.forEach(t -> w.add(name(), t, true)); // the machine lost power: true of every cause that hangs it
        }
    }

    /**
     * How the process ended, when the status has a name (a signal, an NTSTATUS): SIGILL and SIGKILL say much, a
     * plain exit code 1 nothing. An abort or access violation is generic: two unrelated causes both end so.
     */
    static final class ExitStatusRule implements Rule {
        @Override
        public String name() {
            return "exit-status";
        }

        @Override
        public boolean applies(Work w) {
            return w.all(ExitStatus.class).stream().anyMatch(e -> e.name() != null);
        }

        @Override
        public void apply(Work w) {
            TreeSet<String> seen = new TreeSet<>();
            for (ExitStatus e : w.all(ExitStatus.class)) {
                if (e.name() == null) {
                    continue;
                }
                String code = e.hex() != null ? e.hex() : Long.toString(e.code());
                String text = "exit " + code + " (" + e.name() + ")";
                if (seen.add(text)) {
                    Set<String> generic = w.lists().genericExits();
                    w.add(name(), text, generic.contains(e.name().toUpperCase(Locale.ROOT))
                            || (e.hex() != null && generic.contains(e.hex().toUpperCase(Locale.ROOT))));
                }
            }
        }
    }

    /**
     * For an exception with no message (a bare {@code AssertionError}), the innermost frame that fails rather
     * than passes the call on, without its line number (which moves between releases).
     */
    static final class DecisiveFrame implements Rule {
        @Override
        public String name() {
            return "decisive-frame";
        }

        @Override
        public boolean applies(Work w) {
            return w.parts().stream().anyMatch(p -> p.rule().equals("final-exception") && !p.text().contains(": "));
        }

        @Override
        public void apply(Work w) {
            List<PythonException> all = w.all(PythonException.class);
            List<PythonException.Frame> frames = all.getLast().frames();
            for (int i = frames.size() - 1; i >= 0; i--) {
                PythonException.Frame f = frames.get(i);
                String at = (f.file() == null ? "" : f.file()) + ":" + (f.function() == null ? "" : f.function());
                if (w.lists().irrelevantFrames().stream().anyMatch(p -> p.matcher(at).find())) {
                    w.notes().add(name() + ": skipped " + at);
                    continue;
                }
                w.add(name(), "in " + module(f.file()) + (f.function() == null ? "" : " " + f.function()), false);
                return;
            }
        }

        /** {@code torch/nn/functional.py} of a site-packages path, else the file's own name. */
        static String module(String file) {
            String s = file == null ? "?" : file.replace('\\', '/');
            for (String root : List.of("site-packages/", "dist-packages/")) {
                int at = s.lastIndexOf(root);
                if (at >= 0) {
                    return s.substring(at + root.length());
                }
            }
            int slash = s.lastIndexOf('/');
            return slash >= 0 ? s.substring(slash + 1) : s;
        }
    }

    /**
     * No group from generic parts alone: a bare "exit 0xC0000409" is the end of a missing zlibwapi.dll and of a
     * cuDNN mismatch alike, so such a crash stays ungrouped (it still finds similar crashes by its terms).
     */
    static final class TooGeneric implements Rule {
        @Override
        public String name() {
            return "too-generic";
        }

        @Override
        public boolean applies(Work w) {
            return !w.parts().isEmpty() && w.parts().stream().allMatch(Part::generic);
        }

        @Override
        public void apply(Work w) {
            w.notes().add(name() + ": only generic parts ("
                    + w.parts().stream().map(Part::text).collect(Collectors.joining(", ")) + "): no group");
            w.parts().clear();
        }
    }
}
