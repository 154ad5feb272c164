package dev.crashlab.reader;

import java.time.Duration;

/**
 * What reading one bundle may cost; what is over it is left unread (and said so), never an out-of-memory error.
 *
 * @param maxBytes bytes read from the bundle's artifacts, all together
 * @param maxLinesKept text lines kept for the diagnosis's text window, all artifacts together
 * @param maxKeptChars characters of those lines, all together (bounds the window's memory)
 * @param maxFacts facts kept, all artifacts together
 * @param maxTime how long reading may take; artifacts after it are left unread
 */
public record ReadBudget(long maxBytes, long maxLinesKept, long maxKeptChars, long maxFacts, Duration maxTime) {

    public ReadBudget {
        if (maxBytes < 0 || maxLinesKept < 0 || maxKeptChars < 0 || maxFacts < 0 || maxTime.isNegative()) {
            throw new IllegalArgumentException("budgets cannot be negative");
        }
    }

    /** The defaults: 8 GiB read, 200,000 lines and 32 M characters kept, 200,000 facts, 30 minutes. */
    public static ReadBudget defaults() {
        return new ReadBudget(8L << 30, 200_000, 32L << 20, 200_000, Duration.ofMinutes(30));
    }
}
