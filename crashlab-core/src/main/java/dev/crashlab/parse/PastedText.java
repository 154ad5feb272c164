package dev.crashlab.parse;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Gives back the program's output from a log as people paste it: with a terminal's colour codes (a Jupyter
 * notebook, {@code rich}, a coloured logger), saved from a rendered issue page ({@code &lt;} for {@code <}, code fence
 * lines), quoted in a reply ({@code > } on every line), indented as a code block (a tab or four blanks before every
 * line), run by Windows PowerShell 5.1 with {@code 2>&1} (the first stderr line inside the shell's error record), or
 * copied from a console that breaks every line at its width
 * (Windows' console copies its buffer as rows of exactly that many columns). The message a rule looks for is then
 * whole again: {@code <frozen importlib._bootstrap>} instead of {@code &lt;frozen ...&gt;}, a DLL name cut at column 80
 * joined again.
 *
 * <p>Which forms a file has is decided once from its first bytes ({@link #detect}); a file in none of them is read as it
 * is, without a copy. Line numbers stay those of the file: a fence line becomes an empty line, and the rows a wrapped
 * line was cut into become one line at the first row's number followed by as many empty lines. The transforms touch
 * ASCII bytes only, so they hold for UTF-8 and the single-byte code pages alike (UTF-16 text is left as it is).
 */
public final class PastedText {

    private PastedText() {}

    /**
     * The forms found in a file's head: what {@link #clean} undoes. {@code wrapWidth} 0: not wrapped. {@code wrapRows}:
     * the 1-based numbers of single rows cut at a console's width in a file that is not wrapped throughout, each joined
     * with the row after it ({@link #singleWrapRows}). {@code indent}: the tab or four blanks a code block put before
     * every line ({@code ""}: none). {@code shellRecord}: the 1-based numbers of a PowerShell error record's lines
     * ({@link #shellRecords}), each with the bytes to cut from its start (0: the whole line is the shell's).
     */
    public record Form(boolean ansi, boolean entities, boolean quoted, boolean fenced, int wrapWidth, Set<Long> wrapRows,
            String indent, Map<Long, Integer> shellRecord) {

        public static final Form NONE = new Form(false, false, false, false, 0);

        public Form {
            wrapRows = Set.copyOf(wrapRows);
            shellRecord = Map.copyOf(shellRecord);
        }

        public Form(boolean ansi, boolean entities, boolean quoted, boolean fenced, int wrapWidth, Set<Long> wrapRows) {
            this(ansi, entities, quoted, fenced, wrapWidth, wrapRows, "", Map.of());
        }

        public Form(boolean ansi, boolean entities, boolean quoted, boolean fenced, int wrapWidth) {
            this(ansi, entities, quoted, fenced, wrapWidth, Set.of());
        }

        /** Tells whether anything is to be undone. */
        public boolean any() {
            return ansi || entities || quoted || fenced || wrapWidth > 0 || !wrapRows.isEmpty() || !indent.isEmpty()
                    || !shellRecord.isEmpty();
        }
    }

    /** Console widths a wrapped copy is believed at: narrower rows are rarely a terminal's. */
    static final int MIN_WRAP = 60;
    static final int MAX_WRAP = 400;

    /** Reads the forms from the first {@code length} bytes of a file (UTF-16 is reported as none). */
    public static Form detect(byte[] head, int length) {
        TextDecoding.Detected d = TextDecoding.detect(head, length);
        if (d.charset().equals(java.nio.charset.StandardCharsets.UTF_16LE)
                || d.charset().equals(java.nio.charset.StandardCharsets.UTF_16BE)) {
            return Form.NONE;
        }
        boolean ansi = false;
        int entities = 0;
        int lines = 0;
        int quotedLines = 0;
        // lines (not empty) that start with a tab or four blanks, as written and after a reply's quote
        int[] tabbed = new int[2];
        int[] fourBlanks = new int[2];
        boolean shellRecordSeen = false;
        boolean fenced = false;
        int[] columns = new int[MAX_WRAP + 2];
        Set<Integer> widestSeen = new HashSet<>();
        int widest = 0;
        int widestDistinct = 0; // distinct rows of that width cut inside a word
        int widestAfterBlank = 0; // distinct rows of that width cut right after a blank
        int[] afterBlank = new int[MAX_WRAP + 2]; // rows that end in a blank before a word, by width
        int start = d.bomLength();
        // the last line of the head may be cut: only whole lines count
        int end = length;
        while (end > start && head[end - 1] != '\n') {
            end--;
        }
        if (end == start) {
            end = length;
        }
        for (int i = start; i < end; ) {
            int e = i;
            while (e < end && head[e] != '\n') {
                e++;
            }
            int le = e > i && head[e - 1] == '\r' ? e - 1 : e;
            if (le > i) {
                lines++;
                if (head[i] == '>' && !(le - i >= 3 && head[i + 1] == '>' && head[i + 2] == '>')) {
                    quotedLines++;
                }
                if (isFence(head, i, le)) {
                    fenced = true;
                }
                int q = i;
                while (q < le && head[q] == '>') {
                    q++;
                    if (q < le && head[q] == ' ') {
                        q++;
                    }
                }
                for (int k = 0; k < 2; k++) {
                    int at = k == 0 ? i : q;
                    if (at < le && head[at] == '\t') {
                        tabbed[k]++;
                    } else if (at + 4 <= le && head[at] == ' ' && head[at + 1] == ' ' && head[at + 2] == ' ' && head[at + 3] == ' ') {
                        fourBlanks[k]++;
                    }
                }
                shellRecordSeen |= le - i >= NATIVE_COMMAND_ERROR.length && contains(head, i, le, NATIVE_COMMAND_ERROR);
            }
            int cols = 0;
            for (int k = i; k < le; k++) {
                byte b = head[k];
                if (b == 0x1B && k + 1 < le && (head[k + 1] == '[' || head[k + 1] == ']')) {
                    ansi = true;
                }
                if (b == '&' && entityLength(head, k, le) > 0) {
                    entities++;
                }
                if ((b & 0xC0) != 0x80) {
                    cols++;
                }
            }
            if (cols <= MAX_WRAP) {
                columns[cols]++;
            } else {
                columns[MAX_WRAP + 1]++;
            }
            if (cols >= MIN_WRAP && cols <= MAX_WRAP && !tableRow(head, i, le)) {
                // a console's cut falls anywhere, so mostly inside a word: the row's last character and the next row's
                // first are parts of one; or, at a console's usual width, right after a blank, the row ending in it and
                // the next row going on with a word (a line does not end in a blank on its own; rows ending in a blank
                // at other widths are a page's fill, blankWrapRows); lines of one format that happen to be as wide (a
                // device assert per thread, each ending "failed.") end where a line ends
                boolean midWord = e + 1 < end && wordByte(head[le - 1]) && wordByte(head[e + 1]);
                boolean cutAfterBlank = e + 1 < end && le - i >= 2 && head[le - 1] == ' ' && head[le - 2] != ' '
                        && head[le - 2] != '\t' && wordByte(head[e + 1]);
                if (cutAfterBlank) {
                    afterBlank[cols]++;
                }
                if (cols > widest) {
                    widest = cols;
                    widestSeen.clear();
                    widestDistinct = 0;
                    widestAfterBlank = 0;
                }
                if (cols == widest && (midWord || cutAfterBlank && isConsoleWidth(cols))
                        && widestSeen.add(Arrays.hashCode(Arrays.copyOfRange(head, i, le)))) {
                    if (midWord) {
                        widestDistinct++;
                    } else {
                        widestAfterBlank++;
                    }
                }
            }
            i = e + 1;
        }
        int wrap = 0;
        if (widest > 0 && columns[MAX_WRAP + 1] == 0) {
            // a console cuts every longer line at its width: rows of exactly that width are many, rows a little
            // shorter are as rare as anywhere else in a log
            int near = 0;
            for (int w = widest - 10; w < widest; w++) {
                near += columns[w];
            }
            // a console cuts a row after a blank only at its width; rows a page broke after a blank are narrower too
            int narrowerAfterBlank = 0;
            for (int w = MIN_WRAP; w < widest; w++) {
                narrowerAfterBlank += afterBlank[w];
            }
            int cut = widestDistinct + (narrowerAfterBlank == 0 ? widestAfterBlank : 0);
            if (cut >= 2 && cut >= 2 * Math.max(1, near)) {
                wrap = widest;
            }
            // NOTE: one row of that width is not believed (a pip line of exactly 80 columns ending "2.4.0" before an
            // "ERROR:" line is as likely): a short paste with one wrapped line stays cut
        }
        boolean quoted = lines >= 2 && quotedLines * 10 >= lines * 8;
        // a code block indents every line; a program's output starts some line at its first column (a traceback's
        // head, the error line), so nine in ten lines indented alike, and at least two, is the paste's, not the program's
        int k = quoted ? 1 : 0;
        String indent = lines < 2 ? "" : tabbed[k] * 10 >= lines * 9 ? "\t" : fourBlanks[k] * 10 >= lines * 9 ? "    " : "";
        // a fence alone is a Markdown document's, read as written; beside an issue page's entities or a reply's quotes
        // it is the paste's frame
        boolean pasted = ansi || entities >= 2 || quoted;
        Set<Long> rows = Set.of();
        if (wrap == 0 && !quoted && !ansi && entities < 2 && indent.isEmpty()) {
            rows = new HashSet<>(singleWrapRows(head, start, end));
            rows.addAll(blankWrapRows(head, start, end));
        }
        Form form = new Form(ansi, entities >= 2, quoted, fenced && pasted, wrap, rows, indent, Map.of());
        if (shellRecordSeen) {
            Map<Long, Integer> record = shellRecords(head, start, end, form);
            if (!record.isEmpty()) {
                form = new Form(ansi, entities >= 2, quoted, fenced && pasted, wrap, rows, indent, record);
            }
        }
        return form;
    }

    private static final byte[] NATIVE_COMMAND_ERROR = "FullyQualifiedErrorId : NativeCommandError".getBytes(StandardCharsets.US_ASCII);
    /** PowerShell's position line under a command's error: "At line:1 char:1", "At C:\run.ps1:12 char:5". */
    private static final Pattern RECORD_AT = Pattern.compile("At (?:line|.{1,260}):\\d{1,9} char:\\d{1,9}");
    /** The record's first line: the command's name as typed, " : ", then the program's own first stderr line. */
    private static final Pattern RECORD_HEAD = Pattern.compile("([^\\s:]{1,260}|[A-Za-z]:\\\\\\S{1,256}) : ");
    private static final Pattern RECORD_BODY = Pattern.compile("\\+ .*|\\s+\\+ (?:CategoryInfo|FullyQualifiedErrorId)\\s*: .*");

    /**
     * The lines of Windows PowerShell 5.1's error records in the head: a native program run with {@code 2>&1} has its
     * first stderr line wrapped in one ({@code python : Traceback (most recent call last):}, {@code At line:1 char:1}, the
     * command under {@code +} and {@code ~}, {@code + CategoryInfo ...}, {@code + FullyQualifiedErrorId :
     * NativeCommandError}); the lines after it are the program's as written. The record is believed only whole, ending in
     * that id within six lines of its position line: the head line loses the command's name, the others are blanked.
     */
    static Map<Long, Integer> shellRecords(byte[] b, int start, int end, Form form) {
        Map<Long, Integer> out = new HashMap<>();
        java.util.List<String> lines = new java.util.ArrayList<>();
        for (int i = start; i < end; ) {
            int e = i;
            while (e < end && b[e] != '\n') {
                e++;
            }
            int le = e > i && b[e - 1] == '\r' ? e - 1 : e;
            lines.add(new String(cleanLine(Arrays.copyOfRange(b, i, le), le - i, form), StandardCharsets.ISO_8859_1));
            i = e + 1;
        }
        for (int n = 1; n < lines.size(); n++) {
            if (!RECORD_AT.matcher(lines.get(n)).matches()) {
                continue;
            }
            var head = RECORD_HEAD.matcher(lines.get(n - 1));
            if (!head.lookingAt() || head.end() == lines.get(n - 1).length()) {
                continue;
            }
            for (int m = n + 1; m < lines.size() && m <= n + 6 && RECORD_BODY.matcher(lines.get(m)).matches(); m++) {
                if (lines.get(m).strip().startsWith("+ FullyQualifiedErrorId : NativeCommandError")) {
                    out.put((long) n, head.end()); // line numbers are 1-based: lines.get(n - 1) is line n
                    for (int r = n; r <= m; r++) {
                        out.put((long) r + 1, 0);
                    }
                    break;
                }
            }
        }
        return out;
    }

    private static boolean contains(byte[] b, int from, int to, byte[] what) {
        outer:
        for (int i = from; i + what.length <= to; i++) {
            for (int k = 0; k < what.length; k++) {
                if (b[i + k] != what[k]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The widths a terminal or chat client most often breaks a copied line at (80 columns, and 100 and 120). */
    static final int[] CONSOLE_WIDTHS = {80, 100, 120};

    /**
     * The single rows of a console's width that were cut inside one token, where the file is not wrapped throughout: a
     * short paste with one long line (an error message, a DLL path) broken at 80, 100 or 120 columns. A row is joined
     * with the next only when the cut cannot be a line end: the row is exactly a console's width and ends inside a word
     * or a path, or with a quote it opens; the next row goes on in lower case, a digit or a path character (after an
     * opened quote, also a capital: a drive or a name) (a new line starts with a capital, a
     * time stamp, a bracket, a key or indentation: `Faulting module name:`, `ERROR:`, `  File`), is not wider than the
     * width (as wide: a line cut twice) and is no column listing (no run of three spaces); and the token across the cut is a technical one (a
     * path, a file or library name, a number, a status name: it holds one of {@code / \ . _ :} or a digit). Two words of
     * prose cut at a space are never glued ("is" + "too"); a word of prose cut inside itself ("allo" + "cate") is left
     * cut, which loses nothing a rule reads whole.
     */
    static Set<Long> singleWrapRows(byte[] b, int start, int end) {
        Set<Long> rows = new HashSet<>();
        long number = 0;
        int i = start;
        while (i < end) {
            int e = i;
            while (e < end && b[e] != '\n') {
                e++;
            }
            number++;
            int le = e > i && b[e - 1] == '\r' ? e - 1 : e;
            int next = e + 1;
            if (next < end && le > i && isConsoleWidth(columns(b, i, le)) && !tableRow(b, i, le)) {
                int ne = next;
                while (ne < end && b[ne] != '\n') {
                    ne++;
                }
                int nle = ne > next && b[ne - 1] == '\r' ? ne - 1 : ne;
                if (nle > next && continues(b, i, le, next, nle)) {
                    rows.add(number);
                }
            }
            i = e + 1;
        }
        return rows;
    }

    /**
     * The rows a page, a mail or a console broke at a blank: each ends in the blank it was broken after, and the next
     * row's first word would not have fitted on it. A renderer fills a row with words up to its width and moves the word
     * that does not fit to the next row, so for one width {@code w} every such row is at most {@code w} wide and with the
     * next row's first word wider than {@code w}; a line it could not break (no blank after its first word before
     * {@code w}) stays longer. A width is believed when no line of the head contradicts it and it explains two rows or
     * more; then exactly those rows are joined with the next (the blank kept: {@code "Error "} + {@code "loading ..."}).
     * One row alone is joined only when it is at least {@link #MIN_WRAP} wide and the next row goes on in lower case, a
     * digit or a path character (a new line starts with a capital, a key, a bracket, a time stamp or indentation).
     *
     * <p>NOTE: a line that ends in a blank for its own reasons (Python's {@code UserWarning: } before its indented
     * source line, a shell prompt's {@code $ } line) is followed by indentation or by a line its first word would have
     * fitted after: on every real text file of the corpus no width explains two rows.
     */
    static Set<Long> blankWrapRows(byte[] b, int start, int end) {
        // per line: start, end (no line end), columns, columns before the first blank after its first word
        int n = 0;
        int[] from = new int[64];
        int[] to = new int[64];
        for (int i = start; i < end; ) {
            int e = i;
            while (e < end && b[e] != '\n') {
                e++;
            }
            if (n == from.length) {
                from = Arrays.copyOf(from, n * 2);
                to = Arrays.copyOf(to, n * 2);
            }
            from[n] = i;
            to[n] = e > i && b[e - 1] == '\r' ? e - 1 : e;
            n++;
            i = e + 1;
        }
        int[] forbidden = new int[MAX_WRAP + 2]; // widths a line contradicts, as a difference array
        int[] explained = new int[MAX_WRAP + 2]; // rows a width explains, likewise
        int[] lo = new int[n];
        int[] hi = new int[n];
        boolean anyRow = false;
        for (int k = 0; k < n; k++) {
            int cols = columns(b, from[k], to[k]);
            int firstBlank = firstBlankAfterWord(b, from[k], to[k]);
            // a renderer breaks a line wider than w at a blank before w: wider lines keep no such blank
            mark(forbidden, firstBlank + 1, cols - 1);
            int le = to[k];
            if (k + 1 < n && le - from[k] >= 2 && b[le - 1] == ' ' && b[le - 2] != ' ' && b[le - 2] != '\t'
                    && to[k + 1] > from[k + 1] && b[from[k + 1]] != ' ' && b[from[k + 1]] != '\t' && !tableRow(b, from[k], le)) {
                lo[k] = cols;
                hi[k] = cols + columns(b, from[k + 1], firstBlankOrEnd(b, from[k + 1], to[k + 1]));
                mark(explained, lo[k], hi[k]);
                anyRow = true;
            }
        }
        if (!anyRow) {
            return Set.of();
        }
        int best = 0;
        int width = 0;
        for (int w = 0, f = 0, x = 0; w <= MAX_WRAP; w++) {
            f += forbidden[w];
            x += explained[w];
            if (w >= MIN_WRAP && f == 0 && x > best) {
                best = x;
                width = w;
            }
        }
        Set<Long> rows = new HashSet<>();
        for (int k = 0; k < n && best > 0; k++) {
            if (hi[k] > 0 && lo[k] <= width && width <= hi[k]) {
                byte first = b[from[k + 1]];
                boolean goesOn = first >= 'a' && first <= 'z' || first >= '0' && first <= '9' || first == '_' || first == '/'
                        || first == '\\' || first == '.';
                if (best >= 2 || lo[k] >= MIN_WRAP && goesOn) {
                    rows.add((long) k + 1);
                }
            }
        }
        return rows;
    }

    /** Adds one to every width of {@code [lo, hi]} (clamped to the widths looked at) in a difference array. */
    private static void mark(int[] diff, int lo, int hi) {
        int l = Math.max(lo, 0);
        int h = Math.min(hi, MAX_WRAP);
        if (l <= h) {
            diff[l]++;
            diff[h + 1]--;
        }
    }

    /** Columns before the first blank that follows a non-blank byte of {@code b[from, to)} (all of them when none). */
    private static int firstBlankAfterWord(byte[] b, int from, int to) {
        int k = from;
        while (k < to && b[k] == ' ') {
            k++;
        }
        while (k < to && b[k] != ' ') {
            k++;
        }
        return columns(b, from, k);
    }

    private static int firstBlankOrEnd(byte[] b, int from, int to) {
        int k = from;
        while (k < to && b[k] != ' ' && b[k] != '\t') {
            k++;
        }
        return k;
    }

    private static boolean isConsoleWidth(int cols) {
        for (int w : CONSOLE_WIDTHS) {
            if (cols == w) {
                return true;
            }
        }
        return false;
    }

    private static int columns(byte[] b, int from, int to) {
        int cols = 0;
        for (int k = from; k < to; k++) {
            cols += (b[k] & 0xC0) == 0x80 ? 0 : 1;
        }
        return cols;
    }

    // the row [from, to) was cut inside a token that the row [nfrom, nto) goes on with
    private static boolean continues(byte[] b, int from, int to, int nfrom, int nto) {
        byte last = b[to - 1];
        byte first = b[nfrom];
        // a quote that opens at the row's end (an odd count of it in the row: `Error loading "` + `C:\...dll"`) cannot
        // end a line; what it quotes may start with a capital (a drive, a name)
        boolean opensQuote = (last == '"' || last == '\'') && count(b, from, to, last) % 2 == 1;
        if (!(wordByte(last) || last == '/' || last == '\\' || last == '.' || opensQuote)) {
            return false;
        }
        boolean goesOn = first >= 'a' && first <= 'z' || first >= '0' && first <= '9' || first == '_' || first == '/'
                || first == '\\' || first == '.' || last == '_' && first >= 'A' && first <= 'Z'
                || opensQuote && wordByte(first);
        // the next row is shorter, or as wide when the line was cut twice (it is then cut at the same width)
        if (!goesOn || columns(b, nfrom, nto) > columns(b, from, to)) {
            return false;
        }
        int spaces = 0;
        for (int k = nfrom; k < nto; k++) {
            spaces = b[k] == ' ' || b[k] == '\t' ? spaces + 1 : 0;
            if (spaces >= 3) {
                return false; // a column listing (conda list, pip list) lines up its rows with runs of spaces
            }
        }
        // the token across the cut: the row's last run without blanks and the next row's first
        int ts = to;
        while (ts > from && b[ts - 1] != ' ' && b[ts - 1] != '\t') {
            ts--;
        }
        int te = nfrom;
        while (te < nto && b[te] != ' ' && b[te] != '\t') {
            te++;
        }
        return technical(b, ts, to) || technical(b, nfrom, te);
    }

    private static int count(byte[] b, int from, int to, byte c) {
        int n = 0;
        for (int k = from; k < to; k++) {
            n += b[k] == c ? 1 : 0;
        }
        return n;
    }

    private static boolean technical(byte[] b, int from, int to) {
        for (int k = from; k < to; k++) {
            byte c = b[k];
            if (c == '/' || c == '\\' || c == '.' || c == '_' || c == ':' || c >= '0' && c <= '9') {
                return true;
            }
        }
        return false;
    }

    /** The bytes of {@code in} with the forms of {@code form} undone; {@code in} itself when there are none. */
    public static InputStream clean(InputStream in, Form form) {
        return form.any() ? new Cleaning(in, form) : in;
    }

    /** One line with the forms undone (no line end); for tests and for text already split into lines. */
    public static String cleanLine(String line, Form form) {
        byte[] b = line.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return new String(cleanLine(b, b.length, form), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static boolean isFence(byte[] b, int from, int to) {
        int i = from;
        while (i < to && (b[i] == ' ' || b[i] == '\t' || b[i] == '>')) {
            i++;
        }
        if (to - i < 3 || !(b[i] == '`' && b[i + 1] == '`' && b[i + 2] == '`' || b[i] == '~' && b[i + 1] == '~' && b[i + 2] == '~')) {
            return false;
        }
        for (int k = i + 3; k < to; k++) {
            byte c = b[k];
            if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '+' || c == ' ' || c == '`' || c == '~')) {
                return false;
            }
        }
        return true;
    }

    private static boolean wordByte(byte b) {
        return b < 0 || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '_';
    }

    /** An nvidia-smi box row or rule: its width is the table's, not a console's. */
    private static boolean tableRow(byte[] b, int from, int to) {
        byte first = b[from];
        byte last = b[to - 1];
        return (first == '|' || first == '+') && (last == '|' || last == '+');
    }

    private static final String[] NAMED = {"lt", "gt", "quot", "amp", "apos", "nbsp"};
    private static final byte[] NAMED_VALUE = {'<', '>', '"', '&', '\'', ' '};

    /** The length of the entity at {@code b[at]} ({@code &lt;}, {@code &#39;}, {@code &#x27;}), 0 when none. */
    private static int entityLength(byte[] b, int at, int to) {
        int i = at + 1;
        if (i < to && b[i] == '#') {
            i++;
            boolean hex = i < to && (b[i] == 'x' || b[i] == 'X');
            if (hex) {
                i++;
            }
            int digits = 0;
            while (i < to && digits < 6 && (hex ? Character.digit(b[i], 16) >= 0 : b[i] >= '0' && b[i] <= '9')) {
                i++;
                digits++;
            }
            return digits > 0 && i < to && b[i] == ';' && entityValue(b, at, i + 1) >= 0 ? i + 1 - at : 0;
        }
        for (String name : NAMED) {
            int n = name.length();
            if (i + n < to && b[i + n] == ';' && matches(b, i, name)) {
                return n + 2;
            }
        }
        return 0;
    }

    /** The ASCII byte an entity stands for, or -1 (a numeric entity above ASCII is left alone). */
    private static int entityValue(byte[] b, int at, int end) {
        if (b[at + 1] == '#') {
            boolean hex = b[at + 2] == 'x' || b[at + 2] == 'X';
            int v = 0;
            for (int i = at + (hex ? 3 : 2); i < end - 1; i++) {
                v = v * (hex ? 16 : 10) + Character.digit(b[i], hex ? 16 : 10);
            }
            return v >= 0x20 && v < 0x7F ? v : -1;
        }
        for (int k = 0; k < NAMED.length; k++) {
            if (matches(b, at + 1, NAMED[k])) {
                return NAMED_VALUE[k];
            }
        }
        return -1;
    }

    private static boolean matches(byte[] b, int at, String s) {
        for (int k = 0; k < s.length(); k++) {
            if (b[at + k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Undoes the per-line forms (quote prefix, colour codes, entities, fence) on {@code b[0, len)}. */
    static byte[] cleanLine(byte[] b, int len, Form form) {
        int from = 0;
        if (form.quoted()) {
            // "> ", nested "> > " or ">>"; a bare ">" is an empty quoted line
            while (from < len && b[from] == '>') {
                from++;
                if (from < len && b[from] == ' ') {
                    from++;
                }
            }
        }
        if (!form.indent().isEmpty() && startsWith(b, from, len, form.indent())) {
            from += form.indent().length();
        }
        if (form.fenced() && isFence(b, from, len)) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(len - from);
        for (int i = from; i < len; i++) {
            byte c = b[i];
            if (form.ansi() && c == 0x1B && i + 1 < len) {
                int skip = ansiLength(b, i, len);
                if (skip > 0) {
                    i += skip - 1;
                    continue;
                }
            }
            if (form.entities() && c == '&') {
                int n = entityLength(b, i, len);
                int v = n > 0 ? entityValue(b, i, i + n) : -1;
                if (v >= 0) {
                    out.write(v);
                    i += n - 1;
                    continue;
                }
            }
            out.write(c);
        }
        return out.toByteArray();
    }

    private static boolean startsWith(byte[] b, int from, int len, String s) {
        if (from + s.length() > len) {
            return false;
        }
        for (int k = 0; k < s.length(); k++) {
            if (b[from + k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** The length of the escape sequence at {@code b[at]} (CSI {@code ESC [ ... letter}, OSC {@code ESC ] ... BEL}), 0 if none. */
    private static int ansiLength(byte[] b, int at, int to) {
        if (b[at + 1] == '[') {
            int i = at + 2;
            while (i < to && b[i] >= 0x20 && b[i] <= 0x3F) {
                i++;
            }
            return i < to && b[i] >= 0x40 && b[i] <= 0x7E ? i + 1 - at : 0;
        }
        if (b[at + 1] == ']') {
            for (int i = at + 2; i < to && i < at + 512; i++) {
                if (b[i] == 0x07) {
                    return i + 1 - at;
                }
                if (b[i] == 0x1B && i + 1 < to && b[i + 1] == '\\') {
                    return i + 2 - at;
                }
            }
        }
        return 0;
    }

    /** Columns of a line of UTF-8 or single-byte text (continuation bytes are not columns). */
    private static int columns(byte[] b, int len) {
        int n = 0;
        for (int i = 0; i < len; i++) {
            n += (b[i] & 0xC0) == 0x80 ? 0 : 1;
        }
        return n;
    }

    /** The stream: reads a line, undoes its forms, joins the rows of a wrapped line, hands out the bytes. */
    private static final class Cleaning extends FilterInputStream {

        /** A line longer than this is passed on in pieces as it is (no wrap joins it: it was not wrapped). */
        private static final int MAX_LINE = 1 << 20;

        private final Form form;
        private byte[] line = new byte[256];
        private int lineLen;
        private boolean eof;
        private byte[] ready = new byte[0];
        private int readyPos;
        // a wrapped line being joined: its cleaned rows so far and the empty lines owed after it
        private final ByteArrayOutputStream joined = new ByteArrayOutputStream();
        private int owed;
        private byte[] eol = {'\n'};
        // the 1-based number of the line just read, and whether a single wrapped row waits for the next
        private long number;
        private boolean joiningSingle;

        Cleaning(InputStream in, Form form) {
            super(new java.io.BufferedInputStream(in, 1 << 16));
            this.form = form;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (readyPos >= ready.length) {
                if (!fill()) {
                    return -1;
                }
            }
            int n = Math.min(len, ready.length - readyPos);
            System.arraycopy(ready, readyPos, b, off, n);
            readyPos += n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = 0;
            byte[] buf = new byte[8192];
            while (skipped < n) {
                int r = read(buf, 0, (int) Math.min(buf.length, n - skipped));
                if (r < 0) {
                    break;
                }
                skipped += r;
            }
            return skipped;
        }

        @Override
        public int available() {
            return ready.length - readyPos;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        /** Makes the next bytes ready; false at the end. */
        private boolean fill() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (out.size() == 0) {
                if (eof) {
                    flushJoined(out, false);
                    if (out.size() == 0) {
                        return false;
                    }
                    break;
                }
                boolean ended = readLine();
                if (!ended && lineLen >= MAX_LINE) {
                    flushJoined(out, true);
                    out.write(line, 0, lineLen); // an over-long line goes on as it is
                    lineLen = 0;
                    continue;
                }
                if (!ended && lineLen == 0) {
                    continue; // eof reached with nothing left
                }
                int len = lineLen;
                byte[] lineEnd = {'\n'};
                if (len > 0 && line[len - 1] == '\r') {
                    len--;
                    lineEnd = new byte[] {'\r', '\n'};
                }
                byte[] clean = cleanLine(line, len, form);
                lineLen = 0;
                number++;
                Integer shell = form.shellRecord().get(number);
                if (shell != null) {
                    // a PowerShell error record's line: the command's name off the program's line, the shell's own blanked
                    clean = shell == 0 ? new byte[0] : Arrays.copyOfRange(clean, Math.min(shell, clean.length), clean.length);
                }
                if (form.wrapWidth() == 0 && !form.wrapRows().isEmpty()) {
                    // a single row cut at a console's width: joined with the next, which becomes an empty line
                    boolean joinNext = ended && form.wrapRows().contains(number);
                    if (joiningSingle) {
                        joined.write(clean);
                        owed++;
                    } else if (joinNext) {
                        joined.write(clean);
                        eol = lineEnd;
                    } else {
                        out.write(clean);
                        if (ended) {
                            out.write(lineEnd);
                        }
                        continue;
                    }
                    joiningSingle = joinNext;
                    if (!joinNext) {
                        flushJoined(out, ended);
                    }
                    continue;
                }
                if (form.wrapWidth() > 0) {
                    if (clean.length == 0 && joined.size() == 0 && owed == 0) {
                        // an empty line with no wrapped line pending stays (flushJoined writes nothing for it, and the
                        // lines after it would be cited one line early)
                        if (ended) {
                            out.write(lineEnd);
                        }
                        continue;
                    }
                    if (joined.size() > 0 || owed > 0) {
                        joined.write(clean);
                        owed++;
                    } else {
                        joined.write(clean);
                        eol = lineEnd;
                    }
                    if (columns(clean, clean.length) != form.wrapWidth() || !ended) {
                        flushJoined(out, ended);
                    }
                    continue;
                }
                out.write(clean);
                if (ended) {
                    out.write(lineEnd);
                }
            }
            ready = out.toByteArray();
            readyPos = 0;
            return true;
        }

        private void flushJoined(ByteArrayOutputStream out, boolean withEnd) throws IOException {
            if (joined.size() == 0 && owed == 0) {
                return;
            }
            joined.writeTo(out);
            joined.reset();
            if (withEnd || owed > 0) {
                out.write(eol);
            }
            for (int i = 0; i < owed; i++) {
                out.write(eol);
            }
            owed = 0;
        }

        /** Reads up to a line end into {@link #line}; true when a line end was read (it is not kept). */
        private boolean readLine() throws IOException {
            while (lineLen < MAX_LINE) {
                int c = in.read();
                if (c < 0) {
                    eof = true;
                    return false;
                }
                if (c == '\n') {
                    return true;
                }
                if (lineLen == line.length) {
                    line = Arrays.copyOf(line, Math.min(MAX_LINE, line.length * 2));
                }
                line[lineLen++] = (byte) c;
            }
            return false;
        }
    }
}
