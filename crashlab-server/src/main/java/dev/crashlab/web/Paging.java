package dev.crashlab.web;

import dev.crashlab.web.problem.ProblemException;

/**
 * Reads paging and limit parameters as text, so that every bad value (not a number, out of range, past
 * {@link Integer#MAX_VALUE}) is a 400 problem that names the parameter, never a 404 or a 500.
 */
final class Paging {

    /** Highest page number accepted: far beyond any real list, small enough that page x size fits an int. */
    static final int MAX_PAGE = 1_000_000;

    private Paging() {}

    /** Returns {@code text} as a whole number in {@code [min, max]}, or throws a 400 problem naming {@code name}. */
    static int number(String name, String text, int min, int max) {
        String t = text == null ? "" : text.strip();
        if (!t.matches("-?[0-9]{1,12}")) {
            throw bad(name, "`" + (t.length() > 20 ? t.substring(0, 20) + "…" : t) + "` is not a whole number", min, max);
        }
        long v = Long.parseLong(t);
        if (v < min || v > max) {
            throw bad(name, v + " is out of range", min, max);
        }
        return (int) v;
    }

    private static ProblemException bad(String name, String what, int min, int max) {
        return new ProblemException(400, "bad-" + name, "Bad " + name, name + " must be a whole number from " + min + " to "
                + max + "; " + what);
    }
}
