package dev.crashlab.sniff;

import java.util.Objects;

/**
 * Describes one way a format shows itself near the top of a file, with an example line.
 *
 * <p>NOTE: {@link #locate} returns the index of the line where the signature starts (so the sniffer can
 * tell which of several formats in a pasted file comes first), or -1 when the signature is absent.
 *
 * @param name     a short stable id, used in test messages
 * @param type     the type a file gets when this signature starts it
 * @param example  a sample, usually one line, that this signature recognises on its own (checked by a test)
 * @param locator  finds the signature's first line
 */
record Signature(String name, ArtifactType type, String example, Locator locator) {

    /** Finds where a signature starts in a text. */
    @FunctionalInterface
    interface Locator {
        /** Returns the index of the first line of the signature, or -1 when absent. */
        int locate(SniffText text);
    }

    Signature {
        Objects.requireNonNull(name);
        Objects.requireNonNull(type);
        Objects.requireNonNull(example);
        Objects.requireNonNull(locator);
    }

    int locate(SniffText text) {
        return locator.locate(text);
    }
}
