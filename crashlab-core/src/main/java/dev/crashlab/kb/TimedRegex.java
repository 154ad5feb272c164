package dev.crashlab.kb;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Runs a KB regex under a time budget, so that a pattern that backtracks catastrophically on some input
 * costs one note instead of hanging a diagnosis.
 *
 * <p>NOTE: the budget is checked in {@link CharSequence#charAt} of a wrapper around the input, which
 * {@link Matcher} calls for every character it examines; a timed-out match throws {@link RegexTimeoutException}.
 */
public final class TimedRegex {

    /** The default budget for one search over one input. */
    public static final long DEFAULT_BUDGET_NANOS = 50_000_000L;

    private final String source;
    private final Pattern pattern;
    private final long budgetNanos;

    private TimedRegex(String source, Pattern pattern, long budgetNanos) {
        this.source = source;
        this.pattern = pattern;
        this.budgetNanos = budgetNanos;
    }

    /** Thrown when one search exceeds the budget. */
    public static final class RegexTimeoutException extends RuntimeException {
        RegexTimeoutException(String regex, int inputLength) {
            super("regex " + regex + " exceeded its time budget on an input of " + inputLength + " characters");
        }
    }

    /**
     * Compiles a literal written {@code /body/flags} (flags: {@code i} = ignore case, {@code m}, {@code s}).
     *
     * @throws PatternSyntaxException if the body is not a valid regex
     * @throws IllegalArgumentException if the literal is not of the form {@code /body/flags}
     */
    public static TimedRegex ofLiteral(String literal) {
        return ofLiteral(literal, DEFAULT_BUDGET_NANOS);
    }

    /** As {@link #ofLiteral(String)} with an explicit budget. */
    public static TimedRegex ofLiteral(String literal, long budgetNanos) {
        if (!isLiteral(literal)) {
            throw new IllegalArgumentException("a regex is written /pattern/flags, got " + literal);
        }
        int end = literal.lastIndexOf('/');
        String body = literal.substring(1, end);
        int flags = 0;
        for (char c : literal.substring(end + 1).toCharArray()) {
            flags |= switch (c) {
                case 'i' -> Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                case 'm' -> Pattern.MULTILINE;
                case 's' -> Pattern.DOTALL;
                default -> throw new IllegalArgumentException("unknown regex flag '" + c + "' in " + literal + " (use i, m or s)");
            };
        }
        return new TimedRegex(literal, Pattern.compile(body, flags), budgetNanos);
    }

    /** Tells whether a condition string is a regex literal ({@code /.../flags}). */
    public static boolean isLiteral(String s) {
        return s != null && s.length() >= 2 && s.charAt(0) == '/' && s.lastIndexOf('/') > 0
                && s.substring(s.lastIndexOf('/') + 1).chars().allMatch(Character::isLetter);
    }

    /** Returns the first match in {@code input}, or null; throws {@link RegexTimeoutException} past the budget. */
    public MatchSpan find(CharSequence input) {
        Matcher m = pattern.matcher(new Deadline(input, System.nanoTime() + budgetNanos, source));
        return m.find() ? new MatchSpan(m.start(), m.end()) : null;
    }

    /** Tells whether the regex finds a match in {@code input}, within the budget. */
    public boolean matches(CharSequence input) {
        return find(input) != null;
    }

    /** The literal as written in the article. */
    public String source() {
        return source;
    }

    /** The compiled pattern (for literal extraction by the search index). */
    public Pattern pattern() {
        return pattern;
    }

    @Override
    public String toString() {
        return source;
    }

    /** Where a match starts and ends in the input. */
    public record MatchSpan(int start, int end) {}

    /** Wraps the input and fails once the deadline has passed. */
    private static final class Deadline implements CharSequence {
        private final CharSequence text;
        private final long deadline;
        private final String regex;
        private int calls;

        Deadline(CharSequence text, long deadline, String regex) {
            this.text = text;
            this.deadline = deadline;
            this.regex = regex;
        }

        @Override
        public char charAt(int index) {
            // reading the clock costs ~20 ns; every 256th character read keeps the check cheap
            if ((++calls & 255) == 0 && System.nanoTime() > deadline) {
                throw new RegexTimeoutException(regex, text.length());
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Deadline(text.subSequence(start, end), deadline, regex);
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
