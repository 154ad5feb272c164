package dev.crashlab.parse.nvidiasmi;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads nvidia-smi's value spellings ({@code 8192 MiB}, {@code 65.3 W}, {@code 45 C}, {@code [N/A]}) into numbers. */
final class SmiValues {

    /** The most characters of one line examined; nvidia-smi's text and tables never come near it. */
    static final int MAX_LINE = 4096;

    /** The cap for CSV, whose header of 250 query fields runs to about 8,000 characters. */
    static final int MAX_CSV_LINE = 64 * 1024;

    private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");
    private static final Pattern MEMORY = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(MiB|MB|GiB|GB|KiB|KB)?",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern DRIVER = Pattern.compile("\\d{2,4}\\.\\d{1,3}(?:\\.\\d{1,3})?");

    private SmiValues() {}

    /**
     * Tells whether a value is one of nvidia-smi's "no value" spellings ({@code N/A}, {@code ERR!},
     * {@code [Not Supported]}, {@code Unknown Error}...), which callers keep as printed instead of a number.
     */
    static boolean unavailable(String v) {
        return noValue(v);
    }

    /**
     * Tells whether a value is an error nvidia-smi printed ({@code ERR!}, {@code [Unknown Error]}, {@code GPU is lost}):
     * the driver failed to read the field. {@code N/A} and {@code [Not Supported]} are not errors: the GPU or driver
     * has no such value (an idle GeForce reports N/A for fan, ECC or processes as a matter of course).
     */
    static boolean error(String v) {
        if (v == null) {
            return false;
        }
        String l = v.trim().toLowerCase(Locale.ROOT);
        return l.startsWith("err") || l.startsWith("[err") || l.contains("unknown error") || l.contains("gpu is lost")
                || l.contains("gpu requires reset");
    }

    private static boolean noValue(String v) {
        if (v == null) {
            return false;
        }
        String s = v.trim();
        if (s.isEmpty()) {
            return false;
        }
        String l = s.toLowerCase(Locale.ROOT);
        return s.startsWith("[") || l.equals("n/a") || l.startsWith("err") || l.contains("not supported")
                || l.contains("unknown error") || l.contains("not available") || l.contains("insufficient permissions")
                || l.contains("deprecated") || l.contains("gpu is lost") || l.equals("unknown");
    }

    /** Returns the value in MiB, or null where it is no amount of memory. */
    static Long mebibytes(String v) {
        if (v == null || unavailable(v)) {
            return null;
        }
        Matcher m = MEMORY.matcher(v.trim());
        if (!m.lookingAt()) {
            return null;
        }
        double n;
        try {
            n = Double.parseDouble(m.group(1));
        } catch (NumberFormatException e) {
            return null;
        }
        String unit = m.group(2) == null ? "MiB" : m.group(2).toLowerCase(Locale.ROOT);
        double mib = switch (unit) {
            case "gib", "gb" -> n * 1024;
            case "kib", "kb" -> n / 1024;
            default -> n;
        };
        return Math.round(mib);
    }

    /** Returns the leading number of a value ({@code 65.30 W}, {@code 45 C}), or null. */
    static Double number(String v) {
        if (v == null || unavailable(v)) {
            return null;
        }
        Matcher m = NUMBER.matcher(v.trim());
        if (!m.lookingAt()) {
            return null;
        }
        try {
            return Double.parseDouble(m.group());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Returns the leading whole number of a value, or null. */
    static Long whole(String v) {
        Double d = number(v);
        return d == null || d != Math.rint(d) || Math.abs(d) > 1e15 ? null : d.longValue();
    }

    /** Returns the leading whole number as an int, or null. */
    static Integer integer(String v) {
        Long l = whole(v);
        return l == null || l > Integer.MAX_VALUE || l < Integer.MIN_VALUE ? null : l.intValue();
    }

    /** Tells whether a value looks like an NVIDIA driver version ({@code 535.54.03}, {@code 442.92}). */
    static boolean driverVersion(String v) {
        return v != null && DRIVER.matcher(v.trim()).matches();
    }

    /** Returns the value, or null where blank. */
    static String text(String v) {
        if (v == null) {
            return null;
        }
        String s = v.trim();
        return s.isEmpty() ? null : s;
    }

    /** Adds two counts, either of which may be null. */
    static Long sum(Long a, Long b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : a + b;
    }
}
