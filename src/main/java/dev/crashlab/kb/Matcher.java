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
 */
public record Matcher(String id, Source source, String factKind, List<FieldCondition> where, TimedRegex text,
        String compat, String outcome, double weight, boolean specific, String says, int line) {

    /** What a matcher reads. */
    public enum Source {
        /** Typed facts of one kind. */
        FACT,
        /** The source text of any fact (and the bundle's lines). */
        TEXT,
        /** A compatibility check's outcome. */
        COMPAT
    }

    public Matcher {
        where = where == null ? List.of() : List.copyOf(where);
    }
}
