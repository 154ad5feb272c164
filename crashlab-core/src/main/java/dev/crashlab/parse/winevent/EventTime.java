package dev.crashlab.parse.winevent;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the date spellings of event exports into ISO-8601: UTC with {@code Z} where the source has an offset
 * or is an XML {@code SystemTime}, else local time without a zone.
 *
 * <p>NOTE: numeric dates are ambiguous. We read {@code yyyy-MM-dd}/{@code yyyy/M/d} year first; {@code d.M.yyyy}
 * and {@code d-M-yyyy} day first (German, Dutch, Indian locales); {@code a/b/yyyy} month first when the time
 * has AM/PM (en-US) and day first otherwise (en-GB, fr-FR); and swap day and month when the chosen order
 * gives a month over 12.
 */
final class EventTime {

    private static final Pattern ISO = Pattern.compile(
            "(\\d{4}-\\d{2}-\\d{2})[T ](\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?)\\s*(Z|[+-]\\d{2}:?\\d{2})?");
    private static final Pattern NUMERIC = Pattern.compile(
            "(\\d{1,4})([./-])(\\d{1,2})\\2(\\d{1,4}),?\\s+(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d{1,9}))?)?"
                    + "\\s*(AM|PM|am|pm|vorm\\.|nachm\\.|上午|下午)?");
    private static final Pattern CJK_PREFIX = Pattern.compile("(上午|下午)\\s*(\\d{1,2}):(\\d{2})(?::(\\d{2}))?");

    private EventTime() {}

    /** Returns {@code v} as ISO-8601, or null when it is no date we can read. */
    static String parse(String v) {
        if (v == null || v.isBlank() || v.length() > 100) {
            return null;
        }
        String s = v.strip();
        try {
            Matcher iso = ISO.matcher(s);
            if (iso.lookingAt()) {
                String time = iso.group(2);
                if (time.length() <= 5) {
                    time = time + ":00";
                }
                if (time.indexOf(':') == 1) {
                    time = "0" + time;
                }
                String local = iso.group(1) + "T" + time;
                if (iso.group(3) != null) {
                    String zone = iso.group(3).equals("Z") ? "Z" : iso.group(3).replaceFirst("(\\d{2})(\\d{2})$", "$1:$2");
                    return OffsetDateTime.parse(local + zone).toInstant().toString();
                }
                return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(LocalDateTime.parse(local));
            }
            Matcher n = NUMERIC.matcher(s);
            if (n.lookingAt()) {
                return numeric(n);
            }
            Matcher cjk = CJK_PREFIX.matcher(s);
            if (cjk.find()) {
                Matcher date = Pattern.compile("(\\d{4})[/-](\\d{1,2})[/-](\\d{1,2})").matcher(s);
                if (date.find()) {
                    int h = Integer.parseInt(cjk.group(2)) % 12 + (cjk.group(1).equals("下午") ? 12 : 0);
                    LocalDateTime t = LocalDateTime.of(LocalDate.of(Integer.parseInt(date.group(1)),
                            Integer.parseInt(date.group(2)), Integer.parseInt(date.group(3))),
                            LocalTime.of(h, Integer.parseInt(cjk.group(3)),
                                    cjk.group(4) == null ? 0 : Integer.parseInt(cjk.group(4))));
                    return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t);
                }
            }
        } catch (DateTimeException | NumberFormatException e) {
            return null;
        }
        return null;
    }

    /** Returns an XML {@code SystemTime} (always UTC) as ISO-8601 with {@code Z}; null when unreadable. */
    static String systemTime(String v) {
        if (v == null || v.isBlank() || v.length() > 64) {
            return null;
        }
        String s = v.strip();
        try {
            if (s.endsWith("Z") || s.matches(".*[+-]\\d{2}:\\d{2}$")) {
                return OffsetDateTime.parse(s).toInstant().toString();
            }
            return LocalDateTime.parse(s).toInstant(java.time.ZoneOffset.UTC).toString();
        } catch (DateTimeException e) {
            return null;
        }
    }

    private static String numeric(Matcher n) {
        int a = Integer.parseInt(n.group(1));
        String sep = n.group(2);
        int b = Integer.parseInt(n.group(3));
        int c = Integer.parseInt(n.group(4));
        String ampm = n.group(9) == null ? null : n.group(9).toLowerCase(Locale.ROOT);
        int year;
        int month;
        int day;
        if (n.group(1).length() == 4) {
            year = a;
            month = b;
            day = c;
        } else {
            year = c < 100 ? 2000 + c : c;
            boolean monthFirst = sep.equals("/") && ampm != null;
            month = monthFirst ? a : b;
            day = monthFirst ? b : a;
        }
        if (month > 12 && day <= 12) {
            int t = month;
            month = day;
            day = t;
        }
        int hour = Integer.parseInt(n.group(5));
        if (ampm != null) {
            boolean pm = ampm.equals("pm") || ampm.equals("nachm.") || ampm.equals("下午");
            hour = hour % 12 + (pm ? 12 : 0);
        }
        int nanos = 0;
        if (n.group(8) != null) {
            String frac = (n.group(8) + "000000000").substring(0, 9);
            nanos = Integer.parseInt(frac);
        }
        LocalDateTime t = LocalDateTime.of(LocalDate.of(year, month, day), LocalTime.of(hour, Integer.parseInt(n.group(6)),
                n.group(7) == null ? 0 : Integer.parseInt(n.group(7)), nanos));
        return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t);
    }
}
