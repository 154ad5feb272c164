package dev.crashlab.parse.winevent;

import dev.crashlab.fact.SourceRef;

/**
 * Finds the source line that shows a typed field, so a typed fact points at its evidence (the
 * {@code Exception code: 0xc0000409} line) rather than at the start of the event.
 *
 * <p>NOTE: a parser that cannot tell lines apart (a binary record) uses {@link #none()}: every typed fact
 * then cites the event's own sources.
 */
@FunctionalInterface
public interface EvidenceLocator {

    /** Returns the first line of the event that contains one of {@code needles} (tried in order), or null. */
    SourceRef find(String... needles);

    /** Returns a locator that finds nothing, so typed facts cite the event's own first source. */
    static EvidenceLocator none() {
        return needles -> null;
    }
}
