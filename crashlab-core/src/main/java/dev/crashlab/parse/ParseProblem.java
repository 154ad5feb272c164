package dev.crashlab.parse;

import dev.crashlab.fact.SourceRef;

/**
 * Something a parser could not read; bad input is data, reported here, never an exception or a 500.
 */
public sealed interface ParseProblem {

    /** Says what went wrong, for a person. */
    String message();

    /** A line or record that looked like the format but did not follow it. */
    record MalformedInput(SourceRef at, String detail) implements ParseProblem {
        @Override
        public String message() {
            return at.artifact() + ":" + at.line() + ": " + detail;
        }
    }

    /** The input ended where more was required (a cut-off file, an unclosed element). */
    record Truncated(String artifact, long line, String detail) implements ParseProblem {
        @Override
        public String message() {
            return artifact + ":" + line + ": truncated: " + detail;
        }
    }

    /** Bytes that are not text in any encoding the parser tried, or text decoded with replacements. */
    record UnreadableText(String artifact, String detail) implements ParseProblem {
        @Override
        public String message() {
            return artifact + ": " + detail;
        }
    }

    /** A parser failed on this input; a bug of ours, caught so the other parsers and artifacts go on. */
    record ParserFailure(String artifact, String parser, String error) implements ParseProblem {
        @Override
        public String message() {
            return artifact + ": parser " + parser + " failed: " + error;
        }
    }
}
