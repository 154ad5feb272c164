package dev.crashlab.parse.model;

import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import java.io.BufferedReader;
import java.io.IOException;

/** Streams a text artifact's lines to a handler, reporting over-long lines and undecodable bytes. */
final class ModelTextLines {

    /** The most characters of one line examined: summary rows and code lines are short. */
    static final int MAX_LINE = 8 * 1024;

    /** The most over-long lines reported one by one. */
    private static final int MAX_LONG_LINE_PROBLEMS = 5;

    /** Receives one line. */
    interface Handler {
        /** Handles the 1-based line {@code number} whose (possibly cut) text is {@code text}. */
        void line(long number, String text);
    }

    private ModelTextLines() {}

    /** Feeds every line of {@code input} to {@code handler}; problems go to {@code out}. */
    static void forEach(ParseInput input, ParseResult.Builder out, Handler handler) throws IOException {
        long longLines = 0;
        BoundedLineReader reader;
        try (BufferedReader text = input.openText()) {
            reader = new BoundedLineReader(text, MAX_LINE);
            for (String s = reader.readLine(); s != null; s = reader.readLine()) {
                if (reader.truncated() && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                    out.problem(new ParseProblem.MalformedInput(input.at(reader.lineNumber(), ""),
                            "line longer than " + MAX_LINE + " characters; only its start was read"));
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
