package dev.crashlab.sniff;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Holds the decoded head of one artifact split into bounded lines, with the helpers every rule needs.
 *
 * <p>NOTE: lines are cut at {@link #MAX_LINE_CHARS} and the list at {@link #MAX_LINES}, so the work of
 * every rule is bounded whatever the input (a 64 KiB single line, a million empty lines).
 *
 * <p>One scan over the head finds where each line and its trimmed form start and end; a line becomes a
 * {@code String} only when a rule asks for it (most rules look at the first 60 or 200 non-blank lines). A run of
 * lines equal byte for byte (progress output, a repeated warning, a log of {@code ok.}) is found by comparing the text
 * with itself shifted by one line, a doubling stretch at a time, not line by line, and the console markers step over
 * it in one go ({@link #nextDifferent}): a head of 8,000 equal short lines costs a few comparisons and five
 * {@code int}s a line instead of two strings and a comparison a line.
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
    private final int size;
    /** Per line: where it starts and ends in {@link #text} (cut, without a final CR), and where its trimmed form does. */
    private final int[] start;
    private final int[] end;
    private final int[] trimStart;
    private final int[] trimEnd;
    /** Per line: the end (exclusive) of the run of lines equal to it byte for byte that it belongs to. */
    private final int[] sameUntil;
    /** The lines and trimmed lines made so far (null until asked for). */
    private final String[] lines;
    private final String[] trimmed;
    private final int windowEnd;
    private final int firstNonBlank;

    SniffText(String text, String fileName) {
        this.text = text;
        this.fileName = fileName;
        int n = text.length();
        int capacity = Math.min(MAX_LINES, 64);
        int[] s = new int[capacity];
        int[] e = new int[capacity];
        int[] ts = new int[capacity];
        int[] te = new int[capacity];
        int[] same = new int[capacity];
        int count = 0;
        int pos = 0;
        while (pos <= n && count < MAX_LINES) {
            int nl = text.indexOf('\n', pos);
            int lineEnd = nl < 0 ? n : nl;
            int cut = Math.min(lineEnd, pos + MAX_LINE_CHARS);
            if (cut > pos && text.charAt(cut - 1) == '\r') {
                cut--;
            }
            // whole copies of this line (with its '\n') right after it, up to the line limit
            int copies = nl < 0 || lineEnd - pos > MAX_LINE_CHARS ? 0 : copiesAfter(text, pos, nl + 1 - pos, MAX_LINES - count - 1);
            if (count + 1 + copies > s.length) {
                int grown = Math.min(MAX_LINES, Math.max(count * 2, count + 1 + copies));
                s = Arrays.copyOf(s, grown);
                e = Arrays.copyOf(e, grown);
                ts = Arrays.copyOf(ts, grown);
                te = Arrays.copyOf(te, grown);
                same = Arrays.copyOf(same, grown);
            }
            // the bounds String.strip() would keep: no char of a surrogate pair is white space, so chars will do
            int a = pos;
            while (a < cut && Character.isWhitespace(text.charAt(a))) {
                a++;
            }
            int b = cut;
            while (b > a && Character.isWhitespace(text.charAt(b - 1))) {
                b--;
            }
            int period = nl + 1 - pos;
            int runEnd = count + 1 + copies;
            for (int k = 0; k <= copies; k++) {
                int shift = k * period;
                s[count] = pos + shift;
                e[count] = cut + shift;
                ts[count] = a + shift;
                te[count] = b + shift;
                same[count] = runEnd;
                count++;
            }
            if (nl < 0) {
                break;
            }
            pos = nl + 1 + copies * period;
        }
        this.size = count;
        this.start = s;
        this.end = e;
        this.trimStart = ts;
        this.trimEnd = te;
        this.sameUntil = same;
        this.lines = new String[count];
        this.trimmed = new String[count];
        int nonBlank = 0;
        int w = count;
        int first = -1;
        for (int i = 0; i < count; i++) {
            if (!blank(i)) {
                if (first < 0) {
                    first = i;
                }
                if (++nonBlank >= WINDOW_NON_BLANK) {
                    w = i + 1;
                    break;
                }
            }
        }
        this.windowEnd = w;
        this.firstNonBlank = first;
    }

    /**
     * Counts the whole copies of {@code text[from, from + period)} that follow it, at most {@code max}: the text is
     * compared with itself one period earlier, over a stretch that doubles while it matches and halves when not.
     */
    static int copiesAfter(String text, int from, int period, int max) {
        int at = from + period; // the text before {@code at} is copies of the first period
        int copies = 0;
        int step = 1;
        while (step > 0) {
            int want = Math.min(step, Math.min(max - copies, (text.length() - at) / period));
            if (want > 0 && text.regionMatches(at, text, at - period, want * period)) {
                at += want * period;
                copies += want;
                step *= 2;
            } else {
                step = want > 1 ? want / 2 : 0;
            }
        }
        return copies;
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
        return size;
    }

    String line(int i) {
        checkIndex(i);
        String l = lines[i];
        if (l == null) {
            l = text.substring(start[i], end[i]);
            lines[i] = l;
        }
        return l;
    }

    /** Returns line {@code i} without leading and trailing white space. */
    String trimmed(int i) {
        checkIndex(i);
        String t = trimmed[i];
        if (t == null) {
            t = text.substring(trimStart[i], trimEnd[i]);
            trimmed[i] = t;
        }
        return t;
    }

    boolean blank(int i) {
        checkIndex(i);
        return trimStart[i] == trimEnd[i];
    }

    /**
     * Returns the first line after {@code i} that is neither blank nor equal to line {@code i} once trimmed, or
     * {@link #size()}; a run of lines equal byte for byte is stepped over at once.
     */
    int nextDifferent(int i) {
        checkIndex(i);
        int j = sameUntil[i];
        while (j < size) {
            if (!blank(j) && !sameTrimmed(j, i)) {
                return j;
            }
            j = sameUntil[j]; // every copy of a blank line or of one equal to line i is one too
        }
        return size;
    }

    /** Tells whether lines {@code i} and {@code j} are equal once trimmed, without making either a string. */
    boolean sameTrimmed(int i, int j) {
        checkIndex(i);
        checkIndex(j);
        int length = trimEnd[i] - trimStart[i];
        return length == trimEnd[j] - trimStart[j] && text.regionMatches(trimStart[i], text, trimStart[j], length);
    }

    /** Returns the exclusive end index of the signature window. */
    int windowEnd() {
        return windowEnd;
    }

    /** Returns the index of the first non-blank line, or -1 for blank text. */
    int firstNonBlank() {
        return firstNonBlank;
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
        String s = trimmed(i);
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
        for (int i = 0; i < size && out.size() < max; i++) {
            if (!blank(i) && text.charAt(trimStart[i]) != '#') {
                out.add(i);
            }
        }
        return out;
    }

    /** Returns the first {@code max} non-blank line indexes. */
    List<Integer> nonBlankLines(int max) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < size && out.size() < max; i++) {
            if (!blank(i)) {
                out.add(i);
            }
        }
        return out;
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= size) {
            // what the list of lines answered before: an index outside it is a bug of the rule asking
            throw new IndexOutOfBoundsException("line " + i + " of " + size);
        }
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
