package dev.crashlab.kb;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * Tests one field value of a fact against what an article's {@code where:} wrote for it (see
 * {@code kb-articles/README.md}, "Conditions").
 *
 * <p>NOTE: a condition sees the field's values as strings (a list field gives one per element, a missing
 * or null field none); it holds when any value satisfies it, except {@link Absent}, which holds when there
 * is none.
 */
public sealed interface Condition {

    /** Tells whether the values of the field satisfy this condition. */
    boolean test(List<String> values);

    /** The condition as written. */
    String written();

    /** Equal ignoring case; numbers compare as numbers ({@code 79} = {@code 79.0}, {@code 0x1F} = {@code 31}). */
    record Equals(String expected, String written) implements Condition {
        @Override
        public boolean test(List<String> values) {
            return values.stream().anyMatch(this::one);
        }

        boolean one(String v) {
            BigDecimal a = Versions.number(v);
            BigDecimal b = Versions.number(expected);
            if (a != null && b != null) {
                return a.compareTo(b) == 0;
            }
            return v.strip().equalsIgnoreCase(expected.strip());
        }
    }

    /** A regex that must find a match. */
    record Regex(TimedRegex regex, String written) implements Condition {
        @Override
        public boolean test(List<String> values) {
            return values.stream().anyMatch(regex::matches);
        }
    }

    /** A comparison: as numbers where both sides are plain numbers, else as dotted versions. */
    record Compare(String op, String operand, String written) implements Condition {
        @Override
        public boolean test(List<String> values) {
            return values.stream().anyMatch(this::one);
        }

        private boolean one(String v) {
            // dotted versions first (8.10 > 8.9, 450.80.02 > 450.80); plain numbers where a side is not one (-5, 1e3)
            if (Versions.coarserThan(v, operand)) {
                // "8" or "8.x" against "< 8.3": the value does not say which 8 it is, so the comparison cannot hold
                return false;
            }
            Integer c = Versions.compare(v, operand);
            BigDecimal a = Versions.number(v);
            BigDecimal b = Versions.number(operand);
            if ((c == null || v.strip().startsWith("-") || operand.startsWith("-")) && a != null && b != null) {
                c = a.compareTo(b);
            }
            if (c == null) {
                return op.equals("!=") && !v.strip().equalsIgnoreCase(operand.strip());
            }
            return switch (op) {
                case "<" -> c < 0;
                case "<=" -> c <= 0;
                case ">" -> c > 0;
                case ">=" -> c >= 0;
                case "!=" -> c != 0;
                default -> false;
            };
        }
    }

    /** Any of several conditions. */
    record AnyOf(List<Condition> options, String written) implements Condition {
        public AnyOf {
            options = List.copyOf(options);
        }

        @Override
        public boolean test(List<String> values) {
            return options.stream().anyMatch(o -> o.test(values));
        }
    }

    /** The field is set: at least one non-empty value. */
    record Exists(String written) implements Condition {
        @Override
        public boolean test(List<String> values) {
            return values.stream().anyMatch(v -> !v.isBlank());
        }
    }

    /** The field is null, missing or empty. */
    record Absent(String written) implements Condition {
        @Override
        public boolean test(List<String> values) {
            return values.stream().allMatch(String::isBlank);
        }
    }

    /**
     * Parses a scalar condition as an article writes it.
     *
     * @throws IllegalArgumentException with a message fit for {@code file:line} when it is malformed (a bad regex)
     */
    static Condition parse(String written) {
        String w = written.strip();
        if (TimedRegex.isLiteral(w)) {
            try {
                return new Regex(TimedRegex.ofLiteral(w), written);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new IllegalArgumentException("bad regex " + w + ": " + e.getDescription());
            }
        }
        switch (w.toLowerCase(Locale.ROOT)) {
            case "exists" -> {
                return new Exists(written);
            }
            case "absent" -> {
                return new Absent(written);
            }
            default -> { }
        }
        for (String op : List.of("<=", ">=", "!=", "<", ">")) {
            if (w.startsWith(op)) {
                String operand = w.substring(op.length()).strip();
                if (operand.isEmpty() || (Versions.number(operand) == null && Versions.parse(operand) == null)) {
                    throw new IllegalArgumentException("comparison " + w + " needs a number or a dotted version after " + op);
                }
                return new Compare(op, operand, written);
            }
        }
        return new Equals(w, written);
    }
}
