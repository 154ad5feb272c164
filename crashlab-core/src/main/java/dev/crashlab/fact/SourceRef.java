package dev.crashlab.fact;

import java.util.Objects;

/**
 * Points at the evidence for a fact: the artifact's path in the bundle, the 1-based line (or record
 * number, for record-structured formats), and the exact source text.
 *
 * <p>NOTE: {@code text} is cut at {@link #MAX_TEXT} characters, so a fact from a giant line stays small.
 */
public record SourceRef(String artifact, long line, String text) {

    /** The most characters of source text kept. */
    public static final int MAX_TEXT = 2000;

    public SourceRef {
        Objects.requireNonNull(artifact, "artifact");
        text = text == null ? "" : text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "…" : text;
    }
}
