package dev.crashlab.parse;

import java.io.BufferedReader;
import java.io.IOException;

/**
 * Streams a text artifact's lines to a handler, reporting over-long lines and undecodable bytes as problems:
 * the line loop every line-oriented parser shares.
 */
public final class ArtifactLines {

    /** A line limit for formats with short lines (environment listings). */
    public static final int SHORT_LINES = 4 * 1024;

    /** A line limit for summary tables and code lines. */
    public static final int CODE_LINES = 8 * 1024;

    /** The most over-long lines reported one by one: a garbage file must not yield a million problems. */
    private static final int MAX_LONG_LINE_PROBLEMS = 5;

    /** Receives one line. */
    public interface Handler {
        /** Handles the 1-based line {@code number} whose (possibly cut) text is {@code text}. */
        void line(long number, String text);
    }

    private ArtifactLines() {}

    /** Feeds every line of {@code input}, cut at {@code maxLine} characters, to {@code handler}; problems go to {@code out}. */
    public static void forEach(ParseInput input, int maxLine, ParseResult.Builder out, Handler handler) throws IOException {
        long longLines = 0;
        BoundedLineReader reader;
        try (BufferedReader text = input.openText()) {
            reader = new BoundedLineReader(text, maxLine);
            for (String s = reader.readLine(); s != null; s = reader.readLine()) {
                if (reader.truncated() && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                    out.problem(new ParseProblem.MalformedInput(input.at(reader.lineNumber(), ""),
                            "line longer than " + maxLine + " characters; only its start was read"));
                }
                handler.line(reader.lineNumber(), s);
            }
        }
        if (reader.replacements() > 0) {
            out.problem(new ParseProblem.UnreadableText(input.path(),
                    reader.replacements() + " undecodable bytes were replaced by U+FFFD"));
        }
    }
}
