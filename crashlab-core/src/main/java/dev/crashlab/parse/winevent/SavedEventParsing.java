package dev.crashlab.parse.winevent;

import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import java.io.BufferedReader;
import java.io.IOException;

/** Reads a tabular event export (CSV or tab-delimited) row by row; the two parsers differ only in the delimiter. */
final class SavedEventParsing {

    static final int MAX_LINE = 64 * 1024;
    private static final int MAX_STRAY_ROWS_REPORTED = 5;

    private SavedEventParsing() {}

    /**
     * Tells whether a line met inside an open quoted field starts a new row instead: a header, or a row whose
     * first field is unquoted (a line that begins by closing the quote, {@code ","153",...}, continues the field).
     */
    static boolean startsRow(String line, char delimiter) {
        int first = line.indexOf(delimiter);
        if (first <= 0 || line.substring(0, first).indexOf('"') >= 0) {
            return false;
        }
        var f = SavedEventTable.split(line, delimiter);
        return SavedEventTable.ofHeader(f) != null || SavedEventTable.looksLikeRow(f);
    }

    static ParseResult parse(ParseInput input, char delimiter) throws IOException {
        try (BufferedReader text = input.openText()) {
            return parse(input, delimiter, text);
        }
    }

    /** Parses {@code text}, the input's text already open (the caller closes it). */
    static ParseResult parse(ParseInput input, char delimiter, BufferedReader text) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        {
            BoundedLineReader lines = new BoundedLineReader(text, MAX_LINE);
            DelimitedRecordReader rows = new DelimitedRecordReader(lines, delimiter, line -> startsRow(line, delimiter));
            SavedEventTable table = null;
            int events = 0;
            int strayRows = 0;
            boolean reportedUnterminated = false;
            boolean sawTable = false;
            DelimitedRecordReader.Row row;
            while ((row = rows.next()) != null) {
                if (row.fields().size() == 1 && row.fields().get(0).startsWith("#TYPE")) {
                    continue; // Export-Csv's type line
                }
                SavedEventTable header = SavedEventTable.ofHeader(row.fields());
                if (header != null) {
                    table = header; // Event Viewer repeats the header before each row in some exports
                    sawTable = true;
                    continue;
                }
                SavedEventTable t = table != null ? table
                        : SavedEventTable.looksLikeRow(row.fields()) ? SavedEventTable.positional() : null;
                if (t == null) {
                    if (++strayRows > MAX_STRAY_ROWS_REPORTED) {
                        continue;
                    }
                    out.problem(new ParseProblem.MalformedInput(input.at(row.line(), row.lines().get(0).text()),
                            "not an event row (no header seen, and no event id in the fourth column)"));
                    continue;
                }
                sawTable = true;
                if (row.unterminated() && !reportedUnterminated) {
                    reportedUnterminated = true;
                    out.problem(new ParseProblem.MalformedInput(input.at(row.line(), row.lines().get(0).text()),
                            "quoted message never closed; it was taken to end where the next row starts"));
                }
                WindowsEvent e = t.event(row.fields(), input.at(row.line(), row.lines().get(0).text()));
                if (e != null && events++ < WindowsEventTextParser.MAX_EVENTS) {
                    WindowsEventXmlParser.emit(out, e, EvidenceLine.locator(input.path(), row.lines()));
                }
            }
            if (lines.replacements() > 0) {
                out.problem(new ParseProblem.UnreadableText(input.path(), lines.replacements() + " undecodable bytes replaced"));
            }
            if (!sawTable && lines.lineNumber() > 0) {
                out.problem(new ParseProblem.MalformedInput(input.at(1, ""), "no event export header or rows found"));
            }
        }
        return out.build();
    }
}
