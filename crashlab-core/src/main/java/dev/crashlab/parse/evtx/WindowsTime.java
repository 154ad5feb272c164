package dev.crashlab.parse.evtx;

/**
 * Renders Windows FILETIME and SYSTEMTIME values as ISO-8601 UTC text, the way Windows writes them in
 * event XML ({@code 2024-06-13T10:00:00.1234567Z}).
 */
final class WindowsTime {

    /** Seconds from 1601-01-01 to 1970-01-01. */
    private static final long EPOCH_DIFF_SECONDS = 11_644_473_600L;

    private WindowsTime() {}

    /** Renders a FILETIME (100 ns ticks since 1601-01-01, unsigned) with 7 fraction digits. */
    static String fileTime(long ticks) {
        // unsigned: values past 2^63 are garbage anyway, but must not throw
        long seconds = Long.divideUnsigned(ticks, 10_000_000L);
        long fraction = Long.remainderUnsigned(ticks, 10_000_000L);
        long epochSecond = seconds - EPOCH_DIFF_SECONDS;
        long days = Math.floorDiv(epochSecond, 86_400L);
        long secOfDay = Math.floorMod(epochSecond, 86_400L);
        java.time.LocalDate date;
        try {
            date = java.time.LocalDate.ofEpochDay(days);
        } catch (java.time.DateTimeException e) {
            date = java.time.LocalDate.MAX;
        }
        StringBuilder sb = new StringBuilder(28);
        pad(sb, date.getYear(), 4).append('-');
        pad(sb, date.getMonthValue(), 2).append('-');
        pad(sb, date.getDayOfMonth(), 2).append('T');
        pad(sb, (int) (secOfDay / 3600), 2).append(':');
        pad(sb, (int) (secOfDay / 60 % 60), 2).append(':');
        pad(sb, (int) (secOfDay % 60), 2).append('.');
        pad(sb, (int) fraction, 7).append('Z');
        return sb.toString();
    }

    /** Renders a SYSTEMTIME (eight u16: year, month, weekday, day, hour, minute, second, millisecond). */
    static String systemTime(int year, int month, int day, int hour, int minute, int second, int millis) {
        StringBuilder sb = new StringBuilder(24);
        pad(sb, year, 4).append('-');
        pad(sb, month, 2).append('-');
        pad(sb, day, 2).append('T');
        pad(sb, hour, 2).append(':');
        pad(sb, minute, 2).append(':');
        pad(sb, second, 2).append('.');
        pad(sb, millis, 3).append('Z');
        return sb.toString();
    }

    private static StringBuilder pad(StringBuilder sb, int v, int width) {
        String s = Integer.toString(v);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(s);
    }
}
