package dev.crashlab.parse.console;

import dev.crashlab.fact.LogLine;
import dev.crashlab.fact.LogLine.Severity;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads warning, error and fatal lines: TF/absl/glog ({@code E tensorflow/...cc:377] ...}), failed checks,
 * glibc heap aborts, C++ {@code terminate called}, TensorFlow's {@code (0) Internal: ...} root errors,
 * Python logging and warnings, and the display driver's reset message.
 */
final class LogLineRule {

    // "2022-11-03 10:00:00.123456: E tensorflow/...cc:377] msg" (prefixed by a progress bar sometimes)
    static final Pattern TF = Pattern.compile(
            "(?:^|\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?: )([IWEF]) ([\\w./\\\\-]{1,300}:\\d{1,7})\\] ?(.*)$");
    // glog/absl: "E1209 16:36:56.860446 139725186250560 coordinator.py:224] msg"
    private static final Pattern GLOG = Pattern.compile(
            "^([IWEF])\\d{4} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})? {1,8}\\d{1,12} ([\\w./\\\\-]{1,300}:\\d{1,7})\\] ?(.*)$");
    private static final Pattern CHECK = Pattern.compile("Check failed: (.*)$");
    private static final Pattern GLIBC = Pattern.compile(
            "^(?:\\*\\*\\* Error in `[^`]{0,300}': )?((?:double free or corruption|free\\(\\): |malloc\\(\\): |corrupted size vs\\. prev_size"
                    + "|munmap_chunk\\(\\): |realloc\\(\\): |malloc_consolidate\\(\\): |corrupted double-linked list)[^*]{0,300}?)(?:: 0x[0-9a-f]{1,16})?(?: \\*\\*\\*)?$");
    private static final Pattern TERMINATE = Pattern.compile("terminate called after throwing an instance of '([^']{1,300})'");
    private static final Pattern TF_STATUS = Pattern.compile(
            "^\\s{0,8}\\(\\d{1,3}\\) (Unknown|Internal|Resource exhausted|Invalid argument|Not found|Failed precondition|Aborted"
                    + "|Unavailable|Cancelled|Unimplemented|Data loss|Out of range|Already exists|Permission denied"
                    + "|Deadline exceeded|Unauthenticated)(?: error)?: (.+)$");
    // "ERROR:root:msg", "02:54:18-197331 ERROR    msg", "[ERROR] msg"
    private static final Pattern PY_LOGGING = Pattern.compile(
            "^(?:[0-9][0-9:.,\\-T ]{4,30} {1,4}(?:- )?)?\\[?(WARNING|ERROR|CRITICAL|FATAL)\\]?(?::([\\w.]{1,100}):| {1,12}-? ?|: )(\\S.*)$");
    private static final Pattern PY_WARNING = Pattern.compile("^(.{1,500}?\\.py):(\\d{1,7}): (\\w{0,60}Warning): (.*)$");
    private static final Pattern DISPLAY = Pattern.compile("Display driver (\\S{1,60}) stopped responding and has (?:successfully )?recovered");

    /**
     * Every literal one of this rule's checks needs (the reading pass's prefilter looks for these first); a line
     * starting {@code W }, {@code E }, {@code F } or a glog {@code E1209} is a candidate by its first bytes.
     */
    static final String[] LITERALS = {": E ", ": W ", ": F ", "Check failed: ", "corrupt", "(): ", "terminate called",
        ") Unknown", ") Internal", ") Resource exhausted", ") Invalid argument", ") Not found", ") Failed precondition",
        ") Aborted", ") Unavailable", ") Cancelled", ") Unimplemented", ") Data loss", ") Out of range", ") Already exists",
        ") Permission denied", ") Deadline exceeded", ") Unauthenticated", "Warning:", "ERROR", "CRITICAL", "FATAL", "WARNING",
        "Display driver "};

    /** Tells whether a line's first two characters can start a TF or glog line ({@code W }, {@code E1209}). */
    static boolean candidateStart(int first, int second) {
        return (first == 'W' || first == 'E' || first == 'F') && (second == ' ' || (second >= '0' && second <= '9'));
    }

    /** Reads at most one log line from the line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        Matcher m;
        if (t.indexOf(']') > 0) {
            // a cheap look for the severity letter first: most lines of a TF log are I lines, not worth a regex
            if (t.contains(": E ") || t.contains(": W ") || t.contains(": F ") || t.startsWith("W ") || t.startsWith("E ")
                    || t.startsWith("F ")) {
                int[] tf = tfLine(t);
                if (tf != null) {
                    severity(line, t.charAt(tf[0]), t.substring(tf[1], tf[2]), t.substring(tf[3]), out);
                    return;
                }
                if (tf == null && hasLineTerminator(t)) {
                    m = TF.matcher(t);
                    if (m.find()) {
                        glog(line, m, out);
                        return;
                    }
                }
            }
            if (t.length() > 20 && (t.charAt(0) == 'W' || t.charAt(0) == 'E' || t.charAt(0) == 'F')
                    && Character.isDigit(t.charAt(1))) {
                m = GLOG.matcher(t);
                if (m.find()) {
                    glog(line, m, out);
                    return;
                }
            }
        }
        if (t.contains("Check failed: ")) {
            m = CHECK.matcher(t);
            if (m.find()) {
                out.add(new LogLine(Severity.FATAL, "check", m.group(1).strip(), List.of()), line.ref());
                return;
            }
        }
        if (t.contains("corrupt") || t.contains("(): ")) {
            m = GLIBC.matcher(t.strip());
            if (m.matches()) {
                out.add(new LogLine(Severity.FATAL, "glibc", m.group(1).strip(), List.of()), line.ref());
                return;
            }
        }
        if (t.contains("terminate called")) {
            m = TERMINATE.matcher(t);
            if (m.find()) {
                out.add(new LogLine(Severity.FATAL, "c++ runtime", "terminate called after throwing " + m.group(1), List.of()),
                        line.ref());
                return;
            }
        }
        if (t.indexOf(')') > 0 && t.indexOf('(') >= 0 && t.indexOf('(') < 12) {
            m = TF_STATUS.matcher(t);
            if (m.find()) {
                out.add(new LogLine(Severity.ERROR, "tensorflow-status: " + m.group(1), m.group(2).strip(), List.of()),
                        line.ref());
                return;
            }
        }
        if (t.contains("Warning:") && t.contains(".py:")) {
            m = PY_WARNING.matcher(t);
            if (m.find() && !m.group(4).isBlank()) {
                out.add(new LogLine(Severity.WARNING, m.group(3), m.group(4).strip(), List.of()), line.ref());
                return;
            }
        }
        if (t.contains("ERROR") || t.contains("CRITICAL") || t.contains("FATAL") || t.contains("WARNING")) {
            m = PY_LOGGING.matcher(t);
            if (m.find()) {
                Severity s = switch (m.group(1)) {
                    case "WARNING" -> Severity.WARNING;
                    case "ERROR" -> Severity.ERROR;
                    default -> Severity.FATAL;
                };
                out.add(new LogLine(s, m.group(2), m.group(3).strip(), List.of()), line.ref());
                return;
            }
        }
        if (t.contains("Display driver ")) {
            m = DISPLAY.matcher(t);
            if (m.find()) {
                out.add(new LogLine(Severity.ERROR, "display-driver: " + m.group(1), m.group().strip(), List.of()), line.ref());
                // the text is Windows' message for Display event 4101 (a TDR reset that recovered), pasted into the log
                out.add(new dev.crashlab.fact.DisplayDriverEvent("Display", 4101, m.group(1), null, null, null, true, List.of()),
                        line.ref());
            }
        }
    }

    private static void glog(ConsoleLine line, Matcher m, FactSink out) {
        severity(line, m.group(1).charAt(0), m.group(2), m.group(3), out);
    }

    private static void severity(ConsoleLine line, char letter, String source, String message, FactSink out) {
        Severity s = switch (letter) {
            case 'W' -> Severity.WARNING;
            case 'E' -> Severity.ERROR;
            case 'F' -> Severity.FATAL;
            default -> null;
        };
        if (s != null) {
            out.add(new LogLine(s, source, message.strip(), List.of()), line.ref());
        }
    }

    /**
     * Finds what {@link #TF}{@code .matcher(t).find()} finds, without the regex (most lines of a TF log are these):
     * the severity letter's index, the source's start and end, and the message's start; null when it finds nothing.
     * Lines holding a character that ends a line for {@code .} and {@code $} are left to the regex.
     */
    static int[] tfLine(String t) {
        if (hasLineTerminator(t)) {
            return null;
        }
        int n = t.length();
        // "^W path:1] msg": the first alternative at the first position
        if (n >= 2 && isSeverity(t.charAt(0)) && t.charAt(1) == ' ') {
            int[] r = tail(t, 0);
            if (r != null) {
                return r;
            }
        }
        // "<date time>: W path:1] msg" anywhere, leftmost first (the date starts before ": W ", and a letter cannot sit
        // inside a date, so later markers have later starts)
        for (int k = t.indexOf(": "); k >= 0; k = t.indexOf(": ", k + 1)) {
            if (k + 3 < n && isSeverity(t.charAt(k + 2)) && t.charAt(k + 3) == ' ' && timestampEndsAt(t, k)) {
                int[] r = tail(t, k + 2);
                if (r != null) {
                    return r;
                }
            }
        }
        return null;
    }

    /**
     * What {@link #apply} reads a TF line by, on the ASCII bytes {@code b[from, to)} of a line: null unless the line
     * passes the rule's cheap look for a severity letter and {@link #tfLine(String)} finds a line there, else the same
     * four indexes, into {@code b}. A line it finds is one {@link #apply} reads with {@link #tfLine(String)} and nothing
     * else (a null leaves the line to {@link #apply}).
     */
    static int[] tfLine(byte[] b, int from, int to) {
        if (!LiteralScan.plainAscii(b, from, to)) {
            return null; // not an ASCII line without line ends: left to the rule
        }
        return tfLineAscii(b, from, to);
    }

    /**
     * {@link #tfLine(byte[], int, int)} of a line known to be ASCII without a line end (a line the reading pass split
     * and found no byte over 0x7F in).
     */
    static int[] tfLineAscii(byte[] b, int from, int to) {
        // the rule looks when the first ']' is past the line's start: a line found ends its source with a ']' past it
        if (to - from < 2 || b[from] == ']') {
            return null;
        }
        int[] r = null;
        if (isSeverity((char) b[from]) && b[from + 1] == ' ') {
            r = tail(b, from, to, from);
        }
        for (int k = from; r == null && k + 3 < to; k++) {
            if (b[k] == ':' && b[k + 1] == ' ' && isSeverity((char) b[k + 2]) && b[k + 3] == ' '
                    && timestampEndsAt(b, from, k)) {
                r = tail(b, from, to, k + 2);
            }
        }
        // the rule looks only at a line that starts "W ", "E " or "F " or holds ": E ", ": W " or ": F ": a line found at
        // such a letter holds one; a line found at an I must hold one elsewhere
        if (r == null || b[r[0]] != 'I') {
            return r;
        }
        return hasMarker(b, from, to) ? r : null;
    }

    // ": E ", ": W " or ": F " somewhere in b[from, to)
    private static boolean hasMarker(byte[] b, int from, int to) {
        for (int k = from; k + 3 < to; k++) {
            if (b[k] == ':' && b[k + 1] == ' ' && b[k + 3] == ' ' && (b[k + 2] == 'E' || b[k + 2] == 'W' || b[k + 2] == 'F')) {
                return true;
            }
        }
        return false;
    }

    private static int[] tail(byte[] t, int from, int n, int i) {
        int p = i + 2;
        int q = p;
        while (q < n && q - p <= 300 && t[q] >= 0 && PATH_CHAR[t[q]]) {
            q++;
        }
        if (q == p || q - p > 300 || q >= n || t[q] != ':') {
            return null;
        }
        int d = q + 1;
        while (d < n && d - q - 1 <= 7 && t[d] >= '0' && t[d] <= '9') {
            d++;
        }
        int digits = d - q - 1;
        if (digits < 1 || digits > 7 || d >= n || t[d] != ']') {
            return null;
        }
        int msg = d + 1 < n && t[d + 1] == ' ' ? d + 2 : d + 1;
        return new int[] {i, p, d, msg};
    }

    private static boolean timestampEndsAt(byte[] t, int from, int k) {
        int e = k;
        int frac = 0;
        while (frac <= 9 && e - frac - 1 >= from && digit(t, e - frac - 1)) {
            frac++;
        }
        if (frac >= 1 && frac <= 9 && e - frac - 1 >= from && t[e - frac - 1] == '.') {
            if (shape(t, from, e - frac - 1)) {
                return true;
            }
        }
        return shape(t, from, e);
    }

    private static boolean shape(byte[] t, int from, int e) {
        int b = e - 19;
        if (b < from) {
            return false;
        }
        for (int i = 0; i < 19; i++) {
            char f = FORM.charAt(i);
            byte c = t[b + i];
            if (f == 'd' ? c < '0' || c > '9' : c != f) {
                return false;
            }
        }
        return true;
    }

    private static final String FORM = "dddd-dd-dd dd:dd:dd";

    private static boolean digit(byte[] t, int i) {
        return t[i] >= '0' && t[i] <= '9';
    }

    /** The severity a TF line's letter gives, null for {@code I} (the rule keeps nothing). */
    static Severity severityOf(char letter) {
        return switch (letter) {
            case 'W' -> Severity.WARNING;
            case 'E' -> Severity.ERROR;
            case 'F' -> Severity.FATAL;
            default -> null;
        };
    }

    // "W path/x.cc:123] msg" from the letter at i: ([IWEF]) ([\w./\\-]{1,300}:\d{1,7})\] ?(.*)$
    private static int[] tail(String t, int i) {
        int n = t.length();
        int p = i + 2;
        int q = p;
        while (q < n && q - p <= 300 && isPathChar(t.charAt(q))) {
            q++;
        }
        if (q == p || q - p > 300 || q >= n || t.charAt(q) != ':') {
            return null;
        }
        int d = q + 1;
        while (d < n && d - q - 1 <= 7 && t.charAt(d) >= '0' && t.charAt(d) <= '9') {
            d++;
        }
        int digits = d - q - 1;
        if (digits < 1 || digits > 7 || d >= n || t.charAt(d) != ']') {
            return null;
        }
        int msg = d + 1 < n && t.charAt(d + 1) == ' ' ? d + 2 : d + 1;
        return new int[] {i, p, d, msg};
    }

    // \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})? ending just before index k
    private static boolean timestampEndsAt(String t, int k) {
        int e = k;
        int frac = 0;
        while (frac <= 9 && e - frac - 1 >= 0 && digit(t, e - frac - 1)) {
            frac++;
        }
        if (frac >= 1 && frac <= 9 && e - frac - 1 >= 0 && t.charAt(e - frac - 1) == '.') {
            if (shape(t, e - frac - 1)) {
                return true;
            }
        }
        return shape(t, e);
    }

    // the 19 characters "yyyy-mm-dd hh:mm:ss" ending just before index e
    private static boolean shape(String t, int e) {
        int b = e - 19;
        if (b < 0) {
            return false;
        }
        String form = "dddd-dd-dd dd:dd:dd";
        for (int i = 0; i < 19; i++) {
            char f = form.charAt(i);
            char c = t.charAt(b + i);
            if (f == 'd' ? c < '0' || c > '9' : c != f) {
                return false;
            }
        }
        return true;
    }

    private static boolean digit(String t, int i) {
        char c = t.charAt(i);
        return c >= '0' && c <= '9';
    }

    private static boolean isSeverity(char c) {
        return c == 'I' || c == 'W' || c == 'E' || c == 'F';
    }

    /** {@link #isPathChar} of each ASCII character. */
    private static final boolean[] PATH_CHAR = new boolean[128];

    static {
        for (char c = 0; c < 128; c++) {
            PATH_CHAR[c] = isPathChar(c);
        }
    }

    private static boolean isPathChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/'
                || c == '\\' || c == '-';
    }

    private static boolean hasLineTerminator(String t) {
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '\u0085' || c == '\u2028' || c == '\u2029' || c == '\n' || c == '\r') {
                return true;
            }
        }
        return false;
    }
}
