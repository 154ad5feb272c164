package dev.crashlab.reader;

/** Whether an artifact's parser has run, and how it went. */
public enum ParseStatus {
    /** No parser has run on it yet. */
    PENDING,
    /** Parsed into facts without problems. */
    PARSED,
    /** Parsed, with problems noted. */
    PARTIAL,
    /** The parser could read nothing from it. */
    FAILED,
    /** No parser exists for its type. */
    UNSUPPORTED
}
