package dev.crashlab.sniff;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * Recognises the shape of single lines (a pip row, a conda row, a kernel log line...) that several
 * rules share.
 *
 * <p>NOTE: every pattern here is anchored and uses only bounded or possessive repetition, so a
 * hostile line costs linear time; most checks are plain string scans instead of patterns.
 */
final class LineShapes {

    private LineShapes() {}

    /** Runs of white space, the separator of pip and conda columns (compiled once: a sniff tests up to 200 lines a rule). */
    static final Pattern WHITESPACE_RUN = Pattern.compile("\\s++");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    // [  512.345678] NVRM: Xid (PCI:0000:01:00): 79, pid=4242, GPU has fallen off the bus.
    private static final Pattern DMESG_MONOTONIC = Pattern.compile("^(?:<\\d{1,2}>)?\\[ {0,12}\\d{1,10}\\.\\d{1,9}\\]");
    // [Tue Jun  4 10:11:12 2024] NVRM: GPU at PCI:0000:3b:00: GPU-...
    private static final Pattern DMESG_HUMAN = Pattern.compile(
            "^(?:<\\d{1,2}>)?\\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}\\]");
    // Jun 04 10:11:12 gpu-node-7 kernel: NVRM: Xid (PCI:0000:3b:00): 48, An uncorrectable double bit error
    private static final Pattern SYSLOG_KERNEL = Pattern.compile(
            "^[A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\S{1,255}+ kernel: ");
    // 2024-06-04T10:11:12.123456+02:00 gpu-node-7 kernel: nvidia-modeset: ERROR: GPU:0: Idling display engine timed out
    private static final Pattern ISO_KERNEL = Pattern.compile(
            "^\\d{4}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d:\\d\\d[^ ]{0,40}+ \\S{1,255}+ kernel: ");

    /** Tells whether a trimmed line looks like a kernel log line (dmesg, journalctl -k, syslog, bare NVRM). */
    static boolean isKernelLine(String t) {
        if (t.startsWith("NVRM: ") || t.startsWith("nvidia-modeset: ")) {
            return true;
        }
        if (t.startsWith("[") || t.startsWith("<")) {
            return DMESG_MONOTONIC.matcher(t).lookingAt() || DMESG_HUMAN.matcher(t).lookingAt();
        }
        if (t.contains(" kernel: ")) {
            return SYSLOG_KERNEL.matcher(t).lookingAt() || ISO_KERNEL.matcher(t).lookingAt();
        }
        return false;
    }

    /** Tells whether a token can be a package name ({@code numpy}, {@code _libgcc_mutex}, {@code nvidia-cudnn-cu12}). */
    static boolean isPackageName(String s) {
        if (s.isEmpty() || s.length() > 100) {
            return false;
        }
        boolean letter = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isLetter(c)) {
                letter = true;
            } else if (!(Character.isDigit(c) || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        char first = s.charAt(0);
        return letter && (Character.isLetterOrDigit(first) || first == '_');
    }

    /** Tells whether a token can be a package version ({@code 2.5.0.dev20240821}, {@code 1.0}, {@code 3}). */
    static boolean isVersion(String s) {
        if (s.isEmpty() || s.length() > 80 || !Character.isDigit(s.charAt(0))) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '.' || c == '+' || c == '!' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Tells whether a trimmed line is a {@code pip freeze} row: {@code torch==2.1.0+cu121}, {@code pkg @ file:///...}. */
    static boolean isPipFreezeRow(String t) {
        if (t.startsWith("-e ") || t.startsWith("--editable ")) {
            return true;
        }
        int eq = t.indexOf("==");
        int at = t.indexOf(" @ ");
        int cut = eq > 0 ? eq : at;
        if (cut <= 0) {
            return false;
        }
        String name = t.substring(0, cut).strip();
        int extras = name.indexOf('[');
        if (extras > 0 && name.endsWith("]")) {
            name = name.substring(0, extras);
        }
        String rest = t.substring(cut + (cut == eq ? 2 : 3)).strip();
        if (rest.startsWith("=")) {
            rest = rest.substring(1); // "===" arbitrary equality
        }
        return isPackageName(name) && !rest.isEmpty() && rest.indexOf(' ') < 0;
    }

    /** Tells whether a trimmed line is a {@code pip list} row: {@code numpy   1.26.4} (optionally a location). */
    static boolean isPipListRow(String t) {
        if (!hasRegexSpace(t)) {
            return false; // one column: the split below would give one field
        }
        String[] f = WHITESPACE_RUN.split(t, 4);
        if (f.length < 2 || f.length > 3 || !isPackageName(f[0]) || !isVersion(f[1])) {
            return false;
        }
        return f.length == 2 || looksLikePath(f[2]);
    }

    /** Tells whether a trimmed line is a {@code conda list} row: {@code cudnn  7.6.5  cuda10.1_0  defaults}. */
    static boolean isCondaRow(String t) {
        if (!hasRegexSpace(t)) {
            return false; // one column: the split below would give one field
        }
        String[] f = WHITESPACE_RUN.split(t, 7);
        if (f.length < 3 || f.length > 5 || !isPackageName(f[0]) || !isVersion(f[1])) {
            return false;
        }
        String build = f[2];
        return !looksLikePath(build) && build.indexOf(':') < 0 && build.indexOf('=') < 0;
    }

    /** Tells whether {@code t} holds a character of the regex class {@code \s} ({@code [ \t\n\x0B\f\r]}). */
    static boolean hasRegexSpace(String t) {
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r') {
                return true;
            }
        }
        return false;
    }

    private static boolean looksLikePath(String s) {
        return s.startsWith("/") || s.startsWith("~") || s.startsWith("\\")
                || (s.length() > 2 && Character.isLetter(s.charAt(0)) && s.charAt(1) == ':' && (s.charAt(2) == '\\' || s.charAt(2) == '/'));
    }

    /**
     * Tells whether a raw line is an environment {@code key: value} row ({@code cuda: 11.8},
     * {@code visual_studio: 2017 (15.5.1)}): unindented, a short key of at most four words, a value.
     */
    static boolean isEnvRow(String line) {
        if (line.isEmpty() || Character.isWhitespace(line.charAt(0))) {
            return false;
        }
        int colon = line.indexOf(':');
        if (colon < 1 || colon > 40 || colon + 1 >= line.length()) {
            return false;
        }
        char after = line.charAt(colon + 1);
        if (after != ' ' && after != '\t') {
            return false;
        }
        if (line.substring(colon + 1).isBlank()) {
            return false;
        }
        String key = line.substring(0, colon).strip();
        if (key.isEmpty() || !Character.isLetter(key.charAt(0)) || key.split(" ").length > 4) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == ' ' || c == '.' || c == '-' || c == '(' || c == ')' || c == '/')) {
                return false;
            }
        }
        // "RuntimeError: ..." is a traceback's last line, not a setting; "ERROR: ...", "Check failed: ..." are log lines,
        // and so is a tool's diagnostic "nvcc fatal   : ..." / "ptxas error : ..." (the severity is the key's last word)
        String lowerKey = key.toLowerCase(java.util.Locale.ROOT);
        String lastWord = lowerKey.substring(lowerKey.lastIndexOf(' ') + 1);
        if (key.endsWith("Error") || key.endsWith("Exception") || key.endsWith("Warning")
                || LOG_LEVEL_KEYS.contains(lowerKey) || (lowerKey.indexOf(' ') > 0 && LOG_LEVEL_KEYS.contains(lastWord))) {
            return false;
        }
        // a setting's value is short, even when a person wrote a remark beside it; a long sentence is a message
        String[] valueWords = WHITESPACE.split(line.substring(colon + 1).strip());
        if (valueWords.length > MAX_ENV_VALUE_WORDS) {
            return false;
        }
        // a value that goes on into a clause ("7101 ... but source was compiled with 7005") is a message, not a setting
        if (valueWords.length > MAX_PLAIN_VALUE_WORDS) {
            for (String w : valueWords) {
                if (CLAUSE_WORDS.contains(w.toLowerCase(java.util.Locale.ROOT))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Beyond this many words a value is read for the words of a clause. */
    static final int MAX_PLAIN_VALUE_WORDS = 6;
    /** Words that make a sentence of a value: conjunctions and finite verbs a version or a name never holds. */
    static final Set<String> CLAUSE_WORDS = Set.of("but", "was", "were", "is", "are", "cannot", "could", "because", "while");

    /** Keys that are a log line's severity or a check's wording, never a setting's name. */
    static final Set<String> LOG_LEVEL_KEYS = Set.of("error", "errors", "warning", "warn", "info", "debug", "fatal",
            "critical", "note", "hint", "check failed", "assertion failed", "exception", "traceback", "e", "w", "f");

    /** The most words a setting's value has; more is a message. */
    static final int MAX_ENV_VALUE_WORDS = 20;

    /** Keys that only {@code nvidia-smi -q} prints in its padded {@code Key   : value} form. */
    static final Set<String> QUERY_KEYS = Set.of(
            "driver version", "cuda version", "attached gpus", "product name", "product brand",
            "product architecture", "display mode", "display active", "persistence mode", "mig mode",
            "accounting mode", "driver model", "gpu uuid", "minor number", "vbios version", "multigpu board",
            "board id", "gpu part number", "inforom version", "gpu virtualization mode", "fb memory usage",
            "bar1 memory usage", "compute mode", "performance state", "fan speed", "gpu current temp",
            "gpu shutdown temp", "gpu slowdown temp", "gpu max operating temp", "power draw", "power limit",
            "single bit ecc", "double bit ecc", "pending page blacklist", "pending page retirement",
            "sram correctable", "sram uncorrectable", "dram correctable", "dram uncorrectable",
            "remapping failure occurred", "clocks event reasons", "clocks throttle reasons",
            "nvidia-smi version", "nvml version", "kmd version", "cuda umd version", "bus id",
            "gpu link info", "pcie generation", "link width", "used gpu memory", "process name");

    /** Returns the lower-cased key of a {@code -q} style {@code Key   : value} line, or null. */
    static String queryKey(String line) {
        int sep = line.indexOf(" : ");
        if (sep < 0 && line.endsWith(" :")) {
            sep = line.length() - 2;
        }
        if (sep <= 0) {
            return null;
        }
        return SniffText.lower(line.substring(0, sep).strip());
    }

    /**
     * Tells whether a line is a {@code --query-gpu} CSV header: {@code name, pci.bus_id, memory.total [MiB]}.
     * A header cut at the line limit may end in half a field, which is then ignored.
     */
    static boolean isQueryGpuHeader(String line) {
        String[] fields = line.split(",", -1);
        int n = fields.length;
        if (line.length() >= SniffText.MAX_LINE_CHARS) {
            n--; // the last field was cut
        }
        if (n < 2) {
            return false;
        }
        boolean known = false;
        for (int i = 0; i < n; i++) {
            String f = fields[i].strip();
            if (!isQueryField(f)) {
                return false;
            }
            known |= f.indexOf('.') > 0 || QUERY_FIELDS.contains(f);
        }
        return known;
    }

    private static final Set<String> QUERY_FIELDS = Set.of(
            "name", "uuid", "index", "timestamp", "driver_version", "pstate", "serial", "count", "pid",
            "process_name", "used_gpu_memory", "gpu_name", "gpu_uuid", "gpu_bus_id", "gpu_serial", "vbios_version");

    /** Accepts {@code memory.total [MiB]}: dotted lower-case-first identifiers and an optional unit in brackets. */
    private static boolean isQueryField(String f) {
        int bracket = f.indexOf(" [");
        String id = bracket >= 0 ? f.substring(0, bracket) : f;
        if (bracket >= 0 && !(f.endsWith("]") && f.length() - bracket <= 24)) {
            return false;
        }
        if (id.isEmpty() || id.length() > 80 || !(id.charAt(0) >= 'a' && id.charAt(0) <= 'z')) {
            return false;
        }
        char prev = ' ';
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                    || (c == '.' && prev != '.');
            if (!ok) {
                return false;
            }
            prev = c;
        }
        return !id.endsWith(".");
    }
}
