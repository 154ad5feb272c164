package dev.crashlab.kb;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Compares dotted version strings ({@code 8.9.2 >= 8.3}) and numbers, as KB conditions and compat checks need. */
public final class Versions {

    private static final Pattern LEADING_VERSION = Pattern.compile("^\\s*v?(\\d+(?:\\.\\d+)*)");

    private Versions() {}

    /**
     * Parses the leading dotted numbers of a version ({@code 1.8.0.dev2020} -> [1, 8, 0], {@code 8.x} -> [8],
     * {@code 2.0.1+cu117} -> [2, 0, 1]); null when it does not start with a number.
     */
    public static int[] parse(String version) {
        if (version == null) {
            return null;
        }
        Matcher m = LEADING_VERSION.matcher(version);
        if (!m.find()) {
            return null;
        }
        String[] parts = m.group(1).split("\\.");
        List<Integer> out = new ArrayList<>();
        for (String p : parts) {
            try {
                out.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                return null; // absurdly long component
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Compares two dotted versions component by component, a missing component counting as 0
     * ({@code 11.0 == 11}); null when either does not parse.
     */
    public static Integer compare(String a, String b) {
        int[] x = parse(a);
        int[] y = parse(b);
        if (x == null || y == null) {
            return null;
        }
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int xi = i < x.length ? x[i] : 0;
            int yi = i < y.length ? y[i] : 0;
            if (xi != yi) {
                return Integer.compare(xi, yi);
            }
        }
        return 0;
    }

    /**
     * Tells whether {@code version} states fewer components than {@code operand} and agrees with it as far as
     * it goes ({@code 8} or {@code 8.x} against {@code 8.3}): comparing them would guess.
     */
    public static boolean coarserThan(String version, String operand) {
        int[] v = parse(version);
        int[] o = parse(operand);
        if (v == null || o == null || v.length >= o.length) {
            return false;
        }
        for (int i = 0; i < v.length; i++) {
            if (v[i] != o[i]) {
                return false;
            }
        }
        return true;
    }

    /** Tells whether {@code version} starts with every component of {@code prefix} ({@code 11.2.1} is within {@code 11.2}). */
    public static boolean within(String version, String prefix) {
        int[] v = parse(version);
        int[] p = parse(prefix);
        if (v == null || p == null || v.length < p.length) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            if (v[i] != p[i]) {
                return false;
            }
        }
        return true;
    }

    /** The major.minor of a version ({@code 11.2.152} -> {@code 11.2}), or the input where it has fewer parts. */
    public static String majorMinor(String version) {
        int[] v = parse(version);
        if (v == null) {
            return version;
        }
        return v.length == 1 ? String.valueOf(v[0]) : v[0] + "." + v[1];
    }

    /** Parses a plain number ({@code 79}, {@code 0.5}, {@code -1073740791}, {@code 0x1F}); null if it is not one. */
    public static BigDecimal number(String s) {
        if (s == null) {
            return null;
        }
        String t = s.strip();
        try {
            if (t.matches("(?i)0x[0-9a-f]{1,16}")) {
                return new BigDecimal(new java.math.BigInteger(t.substring(2), 16));
            }
            if (t.matches("[-+]?\\d+(\\.\\d+)?([eE][-+]?\\d+)?")) {
                return new BigDecimal(t);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }
}
