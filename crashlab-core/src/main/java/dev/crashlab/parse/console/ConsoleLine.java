package dev.crashlab.parse.console;

import dev.crashlab.fact.SourceRef;

/**
 * One line of a console log being scanned: its text (capped; without a log collector's prefix, which the rules
 * never need), its number, and its source reference (the line as written) made on demand.
 */
final class ConsoleLine {

    final String text;
    final long number;
    private final String artifact;
    private final String written;
    private SourceRef ref;

    ConsoleLine(String artifact, long number, String text) {
        this(artifact, number, text, text);
    }

    /** A line whose rules read {@code text}, the line {@code written} with a collector's prefix taken off. */
    ConsoleLine(String artifact, long number, String text, String written) {
        this.artifact = artifact;
        this.number = number;
        this.text = text;
        this.written = written;
    }

    /** Returns the source reference of this line. */
    SourceRef ref() {
        if (ref == null) {
            ref = new SourceRef(artifact, number, written);
        }
        return ref;
    }

    /** Returns a source reference of this line with the next line's text joined to it (a wrapped message). */
    SourceRef refWith(String next) {
        return new SourceRef(artifact, number, written + "\n" + next);
    }
}
