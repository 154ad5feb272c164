package dev.crashlab.repro;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes memory sizes the way people type them: {@code 6GiB}, {@code 6G}, {@code 512 MiB},
 * {@code 6.5GB}, {@code 1048576}.
 *
 * <p>NOTE: {@code K}, {@code M}, {@code G}, {@code T} and the {@code iB} forms are binary (GPU memory is sold
 * and reported in MiB); {@code KB}, {@code MB}, {@code GB}, {@code TB} are decimal.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)(I?B?)");

    private ByteSize() {}

    /** The size in bytes, or -1 when {@code text} is not a size. */
    public static long parse(String text) {
        if (text == null) {
            return -1;
        }
        Matcher m = SIZE.matcher(text.strip().toUpperCase(Locale.ROOT));
        if (!m.matches()) {
            return -1;
        }
        String unit = m.group(2);
        String suffix = m.group(3);
        if (unit.isEmpty() && suffix.equals("IB")) {
            return -1;
        }
        boolean decimal = suffix.equals("B") && !unit.isEmpty();
        int power = unit.isEmpty() ? 0 : "KMGT".indexOf(unit) + 1;
        double base = decimal ? 1000 : 1024;
        double bytes = Double.parseDouble(m.group(1)) * Math.pow(base, power);
        return bytes > Long.MAX_VALUE / 2 ? -1 : Math.round(bytes);
    }

    /** A size for people: {@code 5.1 GiB}, {@code 340.0 MiB}, {@code 812 B}. */
    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
