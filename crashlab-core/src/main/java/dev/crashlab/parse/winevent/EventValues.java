package dev.crashlab.parse.winevent;

import java.util.Locale;
import java.util.regex.Pattern;

/** Normalises the value spellings of Windows events: exception codes, hex numbers, GUIDs, escaped paths. */
final class EventValues {

    private static final Pattern HEX = Pattern.compile("(?i)(?:0x)?([0-9a-f]{1,16})");
    private static final Pattern UNRESOLVED = Pattern.compile("(?i)(?:0x)?%\\d{1,3}");
    private static final Pattern ESCAPED_DRIVE_PATH = Pattern.compile("^[A-Za-z]:\\\\\\\\.*");

    private EventValues() {}

    /**
     * Returns the value stripped, or null when it is empty or an insertion string the message file never
     * resolved ({@code %11}, {@code 0x%9}: Windows 2008 R2 renders those when message and event disagree).
     */
    static String clean(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        if (s.isEmpty() || UNRESOLVED.matcher(s).matches()) {
            return null;
        }
        return s;
    }

    /** Returns an exception code as lowercase {@code 0x} + 8 hex digits; null when it is not hex. */
    static String exceptionCode(String v) {
        String s = clean(v);
        if (s == null) {
            return null;
        }
        var m = HEX.matcher(s);
        if (!m.matches()) {
            return null;
        }
        String digits = m.group(1).toLowerCase(Locale.ROOT);
        if (digits.length() > 8) {
            String trimmed = digits.replaceFirst("^0+(?=[0-9a-f]{8})", "");
            digits = trimmed;
        }
        return "0x" + "0".repeat(Math.max(0, 8 - digits.length())) + digits;
    }

    /** Returns a hex value as lowercase {@code 0x} + the digits as printed; null when it is not hex. */
    static String hex(String v) {
        String s = clean(v);
        if (s == null) {
            return null;
        }
        var m = HEX.matcher(s);
        return m.matches() ? "0x" + m.group(1).toLowerCase(Locale.ROOT) : null;
    }

    /** Returns a hex number ({@code 0x48E0} or {@code 48e0}) as a number; null when it is not one. */
    static Long hexNumber(String v) {
        String s = clean(v);
        if (s == null) {
            return null;
        }
        var m = HEX.matcher(s);
        if (!m.matches() || m.group(1).length() > 15) {
            return null;
        }
        return Long.parseLong(m.group(1), 16);
    }

    /** Returns a decimal integer; null when it is not one. */
    static Integer integer(String v) {
        String s = clean(v);
        if (s == null || s.length() > 9 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return Integer.valueOf(s);
    }

    /** Returns a decimal long; null when it is not one. */
    static Long whole(String v) {
        String s = clean(v);
        if (s == null || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return Long.valueOf(s);
    }

    /** Returns a GUID or report id in lowercase; null when empty. */
    static String id(String v) {
        String s = clean(v);
        return s == null ? null : s.toLowerCase(Locale.ROOT);
    }

    /**
     * Returns a path with the doubled backslashes of an escaping tool undone ({@code C:\\Python36\\python.exe},
     * as issue trackers store pasted text); a {@code \\?\} or UNC prefix is left alone.
     */
    static String path(String v) {
        String s = clean(v);
        if (s == null) {
            return null;
        }
        return ESCAPED_DRIVE_PATH.matcher(s).matches() ? s.replace("\\\\", "\\") : s;
    }
}
