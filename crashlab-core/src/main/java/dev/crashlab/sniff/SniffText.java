package dev.crashlab.sniff;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Holds the decoded head of one artifact split into bounded lines, with the helpers every rule needs.
 *
 * <p>NOTE: lines are cut at {@link #MAX_LINE_CHARS} and the list at {@link #MAX_LINES}, so the work of
 * every rule is bounded whatever the input (a 64 KiB single line, a million empty lines).
 */
final class SniffText {

    /** Lines beyond this are not looked at; 64 KiB of very short lines stays well under it. */
    static final int MAX_LINES = 8_000;
    /** Longer lines are cut; a few long CSV headers (6,000+ characters) must stay whole. */
    static final int MAX_LINE_CHARS = 16 * 1024;
    /** A format's signature must start within this many non-blank lines to count (pasted prompts come first). */
    static final int WINDOW_NON_BLANK = 60;
    /** Line-shape statistics look at this many non-blank lines. */
    static final int SHAPE_NON_BLANK = 200;

    private final String text;
    private final String fileName;
    private final List<String> lines;
    private final List<String> trimmed;
    private final int windowEnd;

    SniffText(String text, String fileName) {
        this.text = text;
        this.fileName = fileName;
        this.lines = new ArrayList<>();
        this.trimmed = new ArrayList<>();
        int start = 0;
        int n = text.length();
        while (start <= n && lines.size() < MAX_LINES) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            int cut = Math.min(end, start + MAX_LINE_CHARS);
            if (cut > start && text.charAt(cut - 1) == '\r') {
                cut--;
            }
            String line = text.substring(start, cut);
            lines.add(line);
            trimmed.add(line.strip());
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
        int nonBlank = 0;
        int w = lines.size();
        for (int i = 0; i < lines.size(); i++) {
            if (!trimmed.get(i).isEmpty() && ++nonBlank >= WINDOW_NON_BLANK) {
                w = i + 1;
                break;
            }
        }
        this.windowEnd = w;
    }

    /** Returns the whole decoded head. */
    String text() {
        return text;
    }

    /** Returns the artifact's file name (last path segment), lower-cased; empty when unknown. */
    String fileName() {
        return fileName;
    }

    int size() {
        return lines.size();
    }

    String line(int i) {
        return lines.get(i);
    }

    /** Returns line {@code i} without leading and trailing white space. */
    String trimmed(int i) {
        return trimmed.get(i);
    }

    boolean blank(int i) {
        return trimmed.get(i).isEmpty();
    }

    /** Returns the exclusive end index of the signature window. */
    int windowEnd() {
        return windowEnd;
    }

    /** Returns the index of the first non-blank line, or -1 for blank text. */
    int firstNonBlank() {
        for (int i = 0; i < lines.size(); i++) {
            if (!blank(i)) {
                return i;
            }
        }
        return -1;
    }

    /** Returns the index of the first window line whose {@link #unquoted} form matches, or -1. */
    int firstInWindow(Predicate<String> p) {
        for (int i = 0; i < windowEnd; i++) {
            if (!blank(i) && p.test(unquoted(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Tells whether any window line's {@link #unquoted} form matches. */
    boolean anyInWindow(Predicate<String> p) {
        return firstInWindow(p) >= 0;
    }

    /**
     * Returns the trimmed line without Markdown quote markers ({@code > }), because logs pasted into
     * issues and e-mails arrive quoted.
     */
    String unquoted(int i) {
        String s = trimmed.get(i);
        int k = 0;
        while (k < s.length() && (s.charAt(k) == '>' || s.charAt(k) == ' ' || s.charAt(k) == '\t')) {
            k++;
        }
        // Keep "<Event ...>" and similar intact: only strip when the line started with a quote marker.
        return k == 0 ? s : s.substring(k);
    }

    /** Returns the indexes of the first {@code max} non-blank lines that are not {@code #} comments. */
    List<Integer> contentLines(int max) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < lines.size() && out.size() < max; i++) {
            String t = trimmed.get(i);
            if (!t.isEmpty() && !t.startsWith("#")) {
                out.add(i);
            }
        }
        return out;
    }

    /** Returns the first {@code max} non-blank line indexes. */
    List<Integer> nonBlankLines(int max) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < lines.size() && out.size() < max; i++) {
            if (!blank(i)) {
                out.add(i);
            }
        }
        return out;
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
