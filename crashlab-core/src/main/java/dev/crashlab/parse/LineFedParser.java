package dev.crashlab.parse;

import java.util.List;

/**
 * A line-oriented parser that can be fed lines by a reader shared with other parsers: one scan of the bytes finds,
 * for every parser of the artifact's type at once, the lines holding its literals, and a line none of them wants is
 * never decoded.
 *
 * <p>NOTE: a reading must give the same facts and problems fed this way as read through {@link ArtifactLines} (its
 * own {@link ArtifactParser#parse} does exactly that with the same {@link Reading}): it may be skipped a line only
 * while {@link Reading#wantsEveryLine()} is false and the line holds none of {@link #lineLiterals()}, and
 * none of {@link #checkLiterals()} or {@link Reading#wants} says no. Long-line and undecodable-byte problems are the feeder's business
 * ({@link ArtifactLines.Problems}).
 */
public interface LineFedParser extends ArtifactParser {

    /** The literals (matched on UTF-8 bytes, case-sensitively) without one of which an idle reading skips a line. */
    List<String> lineLiterals();

    /**
     * Literals that make a line worth asking about ({@link Reading#wants}) while idle, for checks no literal decides
     * alone (a short {@code NAME = 64} line); none by default.
     */
    default List<String> checkLiterals() {
        return List.of();
    }

    /** The most characters of one line given to the reading ({@link ArtifactLines#CODE_LINES} and the like). */
    int maxLine();

    /** Starts reading one artifact. */
    Reading startReading(ParseInput input);

    /** One artifact's reading: its state between lines. */
    interface Reading {

        /**
         * Tells whether the next line matters whatever it holds (an open statement, a table, a block); changes only
         * in {@link #line}.
         */
        boolean wantsEveryLine();

        /**
         * Tells whether a line holding one of the {@link #checkLiterals()} and none of the {@link #lineLiterals()}
         * matters, looking at its raw bytes {@code b[from, to)} (ASCII-compatible text; true when unsure).
         */
        default boolean wants(byte[] b, int from, int to) {
            return true;
        }

        /** Reads the 1-based line {@code number}, cut at {@link #maxLine()} characters. */
        void line(long number, String text);

        /** Ends the reading: what is still open becomes facts in {@code out}. */
        void finish(ParseResult.Builder out);
    }
}
