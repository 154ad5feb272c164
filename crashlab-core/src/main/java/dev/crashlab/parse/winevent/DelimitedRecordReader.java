package dev.crashlab.parse.winevent;

import dev.crashlab.parse.BoundedLineReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reads delimited records (Event Viewer's CSV and tab-delimited exports) whose quoted fields span lines.
 *
 * <p>NOTE: a quoted field that is never closed (the tab-delimited export in our corpus lost its closing quotes)
 * ends where a line that starts a new row begins, as {@code startsRow} decides, or at the end of the input;
 * {@link Row#unterminated()} tells the caller.
 */
final class DelimitedRecordReader {

    /**
     * One record.
     *
     * @param fields the fields, unquoted
     * @param lines the physical lines it spans, with their numbers
     * @param unterminated whether a quoted field was still open when the record ended
     */
    record Row(List<String> fields, List<EvidenceLine> lines, boolean unterminated) {
        long line() {
            return lines.get(0).line();
        }
    }

    private static final int MAX_FIELD = 64 * 1024;
    private static final int MAX_LINES = 5000;

    private final BoundedLineReader in;
    private final char delimiter;
    private final Predicate<String> startsRow;
    private String pending;
    private long pendingLine;

    DelimitedRecordReader(BoundedLineReader in, char delimiter, Predicate<String> startsRow) {
        this.in = in;
        this.delimiter = delimiter;
        this.startsRow = startsRow;
    }

    /** Returns the next record, or null at the end. Blank lines between records are skipped. */
    Row next() throws IOException {
        String line;
        long number;
        do {
            if (pending != null) {
                line = pending;
                number = pendingLine;
                pending = null;
            } else {
                line = in.readLine();
                number = in.lineNumber();
            }
            if (line == null) {
                return null;
            }
        } while (line.isBlank());
        List<String> fields = new ArrayList<>();
        List<EvidenceLine> lines = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean fieldStarted = false;
        while (true) {
            lines.add(new EvidenceLine(number, line));
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quoted) {
                    if (c == '"') {
                        if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
                            append(field, '"');
                            i++;
                        } else {
                            quoted = false;
                        }
                    } else {
                        append(field, c);
                    }
                } else if (c == delimiter) {
                    fields.add(field.toString());
                    field.setLength(0);
                    fieldStarted = false;
                } else if (c == '"' && !fieldStarted) {
                    quoted = true;
                    fieldStarted = true;
                } else {
                    append(field, c);
                    fieldStarted = true;
                }
            }
            if (!quoted) {
                break;
            }
            String nextLine = in.readLine();
            if (nextLine == null) {
                break;
            }
            if (startsRow.test(nextLine) || lines.size() >= MAX_LINES) {
                pending = nextLine;
                pendingLine = in.lineNumber();
                break;
            }
            append(field, '\n');
            line = nextLine;
            number = in.lineNumber();
        }
        fields.add(field.toString());
        return new Row(fields, lines, quoted);
    }

    private static void append(StringBuilder b, char c) {
        if (b.length() < MAX_FIELD) {
            b.append(c);
        }
    }
}
