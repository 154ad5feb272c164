package dev.crashlab.parse.winevent;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Re-joins a {@code Format-List} value that the console hard-wrapped: PowerShell breaks long values at the window
 * width, between words (leaving trailing blanks) or in the middle of a word or path.
 *
 * <p>NOTE: a physical line continues the previous one when the previous one ends in blanks, fills the width
 * exactly (a mid-word break: joined without a blank), or could not have taken the next line's first word; never
 * when the next line starts a label, a {@code P1:} parameter, a stack frame ({@code at ...}) or a path. The width
 * is the longest physical line of the value.
 */
final class ConsoleWrap {

    private static final Pattern STARTS_ITEM = Pattern.compile("^(?:P\\d{1,2}\\s*[:：]|at\\s|\\\\\\\\|[A-Za-z]:\\\\)");
    private static final Set<MessageField> LABELS;

    static {
        java.util.EnumSet<MessageField> s = java.util.EnumSet.noneOf(MessageField.class);
        s.addAll(MessageField.APP_ERROR);
        s.addAll(MessageField.WER);
        s.addAll(MessageField.DOTNET);
        s.addAll(MessageField.HANG);
        s.addAll(MessageField.WHEA);
        LABELS = s;
    }

    private ConsoleWrap() {}

    /**
     * Returns the value whose physical lines are {@code raw}; the first line is the whole property line and its
     * value starts at {@code valueColumn}; later lines lose up to {@code valueColumn} leading blanks.
     */
    static String rejoin(List<String> raw, int valueColumn) {
        int width = 0;
        for (String r : raw) {
            width = Math.max(width, r.length());
        }
        StringBuilder out = new StringBuilder();
        String prev = null;
        for (int i = 0; i < raw.size(); i++) {
            String r = raw.get(i);
            String content = i == 0 ? (r.length() > valueColumn ? r.substring(valueColumn) : "") : dedent(r, valueColumn);
            if (i == 0) {
                out.append(content);
            } else {
                String trimmed = content.strip();
                if (joins(prev, trimmed, width)) {
                    boolean midWord = prev.length() >= width && !endsBlank(prev);
                    trimEnd(out);
                    if (!midWord) {
                        out.append(' ');
                    }
                    out.append(trimmed);
                } else {
                    out.append('\n').append(content);
                }
            }
            prev = r;
        }
        return out.toString();
    }

    private static boolean joins(String prev, String next, int width) {
        if (next.isEmpty() || prev.isBlank()) {
            return false;
        }
        if (STARTS_ITEM.matcher(next).lookingAt() || MessageField.match(next, LABELS) != null
                || BareMessageStart.of(next) != null) {
            return false;
        }
        if (prev.length() >= width || endsBlank(prev)) {
            return true;
        }
        int word = next.indexOf(' ');
        return prev.length() + 1 + (word < 0 ? next.length() : word) > width;
    }

    private static boolean endsBlank(String s) {
        return !s.isEmpty() && Character.isWhitespace(s.charAt(s.length() - 1));
    }

    private static void trimEnd(StringBuilder b) {
        while (!b.isEmpty() && Character.isWhitespace(b.charAt(b.length() - 1)) && b.charAt(b.length() - 1) != '\n') {
            b.setLength(b.length() - 1);
        }
    }

    /** Removes up to {@code n} leading blanks. */
    static String dedent(String s, int n) {
        int i = 0;
        while (i < n && i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return s.substring(i);
    }
}
