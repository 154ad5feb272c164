package dev.crashlab.parse.winevent;

import dev.crashlab.fact.SourceRef;
import java.util.List;
import java.util.Locale;

/**
 * One line of an event's rendering with its 1-based line number in the artifact: what a typed fact cites.
 *
 * @param line the line number
 * @param text the line as shown (prefixes such as {@code > } removed)
 */
record EvidenceLine(long line, String text) {

    /** Returns a locator over {@code lines} of {@code artifact}: the first line containing a needle, tried in order. */
    static EvidenceLocator locator(String artifact, List<EvidenceLine> lines) {
        return needles -> {
            for (String needle : needles) {
                String n = needle.toLowerCase(Locale.ROOT);
                for (EvidenceLine l : lines) {
                    if (l.text().toLowerCase(Locale.ROOT).contains(n)) {
                        return new SourceRef(artifact, l.line(), l.text().strip());
                    }
                }
            }
            return null;
        };
    }
}
