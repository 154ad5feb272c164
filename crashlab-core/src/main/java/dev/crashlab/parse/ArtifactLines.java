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

    /** Receives raw lines of ASCII-compatible text (UTF-8, Windows-1252), split but not decoded. */
    public interface RawLines {
        /** Takes the next line's first {@code len} bytes at {@code b[off]}; {@code high} if any of them is over 0x7F. */
        void line(byte[] b, int off, int len, boolean high);

        /** The most bytes of a line it looks at: it is given no more. */
        int maxLineBytes();
    }

    private ArtifactLines() {}

    /** Feeds every line of {@code input}, cut at {@code maxLine} characters, to {@code handler}; problems go to {@code out}. */
    public static void forEach(ParseInput input, int maxLine, ParseResult.Builder out, Handler handler) throws IOException {
        Problems problems = new Problems(input, maxLine, out);
        BoundedLineReader reader;
        try (BufferedReader text = input.openText()) {
            reader = new BoundedLineReader(text, maxLine);
            for (String s = reader.readLine(); s != null; s = reader.readLine()) {
                problems.line(reader.lineNumber(), reader.truncated());
                handler.line(reader.lineNumber(), s);
            }
        }
        problems.finish(reader.replacements());
    }

    /** Reads {@code input} line by line into a reading of {@code parser}: what its {@link ArtifactParser#parse} does. */
    public static ParseResult read(ParseInput input, LineFedParser parser) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        LineFedParser.Reading reading = parser.startReading(input);
        forEach(input, parser.maxLine(), out, reading::line);
        reading.finish(out);
        return out.build();
    }

    /**
     * The problems of reading lines: the first over-long lines one by one, then the undecodable bytes counted; the
     * same whether the lines come from {@link #forEach} or from a reader shared by several parsers.
     */
    public static final class Problems {
        private final ParseInput input;
        private final int maxLine;
        private final ParseResult.Builder out;
        private long longLines;

        /** Problems of lines cut at {@code maxLine} characters, going to {@code out}. */
        public Problems(ParseInput input, int maxLine, ParseResult.Builder out) {
            this.input = input;
            this.maxLine = maxLine;
            this.out = out;
        }

        /** Notes line {@code number}, which was cut if {@code truncated}. */
        public void line(long number, boolean truncated) {
            if (truncated && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                out.problem(new ParseProblem.MalformedInput(input.at(number, ""),
                        "line longer than " + maxLine + " characters; only its start was read"));
            }
        }

        /** Ends the reading, {@code replacements} characters having been undecodable bytes. */
        public void finish(long replacements) {
            if (replacements > 0) {
                out.problem(new ParseProblem.UnreadableText(input.path(),
                        replacements + " undecodable bytes were replaced by U+FFFD"));
            }
        }
    }
}
