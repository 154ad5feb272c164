package dev.crashlab.kb;

import java.util.List;

/**
 * One piece of evidence an article looks for: facts of a kind meeting conditions, a regex over source
 * text, or the outcome of a compatibility check.
 *
 * @param id unique within the article
 * @param source which of the three it is
 * @param factKind the fact kind for {@link Source#FACT}, else null
 * @param where the conditions for {@link Source#FACT}, all of which must hold
 * @param text the regex for {@link Source#TEXT}, else null
 * @param compat the check id for {@link Source#COMPAT}, else null
 * @param outcome the outcome ({@code mismatch}, {@code ok}, {@code unknown}) for {@link Source#COMPAT}
 * @param weight in (0, 1]: how strongly this alone points at (or, in {@code against}, away from) the cause
 * @param specific true when it points at this cause rather than merely being consistent with it
 * @param says the evidence sentence template ({@code {field}} = the fact's field), or null
 * @param line the line of the matcher in its article
 * @param all the parts of an {@link Source#ALL} matcher (each a fact, text or compat matcher), else empty
 * @param absent for a part of an {@code all:} matcher: the part holds when nothing matches it
 */
public record Matcher(String id, Source source, String factKind, List<FieldCondition> where, TimedRegex text,
        String compat, String outcome, double weight, boolean specific, String says, int line, List<Matcher> all,
        boolean absent) {

    /** What a matcher reads. */
    public enum Source {
        /** Typed facts of one kind. */
        FACT,
        /** The source text of any fact (and the bundle's lines). */
        TEXT,
        /** A compatibility check's outcome. */
        COMPAT,
        /** Several parts that must hold together ({@code all:}); a part marked {@code absent: true} holds when nothing matches it. */
        ALL
    }

    public Matcher {
        where = where == null ? List.of() : List.copyOf(where);
        all = all == null ? List.of() : List.copyOf(all);
    }

    /** A fact, text or compat matcher (no parts). */
    public Matcher(String id, Source source, String factKind, List<FieldCondition> where, TimedRegex text,
            String compat, String outcome, double weight, boolean specific, String says, int line) {
        this(id, source, factKind, where, text, compat, outcome, weight, specific, says, line, List.of(), false);
    }
}
