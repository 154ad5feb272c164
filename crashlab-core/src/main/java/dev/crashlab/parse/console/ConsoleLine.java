package dev.crashlab.parse.console;

import dev.crashlab.fact.SourceRef;

/** One line of a console log being scanned: its text (capped), its number, and its source reference made on demand. */
final class ConsoleLine {

    final String text;
    final long number;
    private final String artifact;
    private SourceRef ref;

    ConsoleLine(String artifact, long number, String text) {
        this.artifact = artifact;
        this.number = number;
        this.text = text;
    }

    /** Returns the source reference of this line. */
    SourceRef ref() {
        if (ref == null) {
            ref = new SourceRef(artifact, number, text);
        }
        return ref;
    }

    /** Returns a source reference of this line with the next line's text joined to it (a wrapped message). */
    SourceRef refWith(String next) {
        return new SourceRef(artifact, number, text + "\n" + next);
    }
}
