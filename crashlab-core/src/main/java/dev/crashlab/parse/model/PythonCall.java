package dev.crashlab.parse.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Python call's arguments as written ({@code Conv2D(32, (3, 3), padding='same')}): positional and
 * keyword arguments as source text, with helpers that read the literal forms model code uses (ints, tuples
 * and lists of ints, quoted strings).
 *
 * <p>NOTE: only literals are read; a variable or an expression reads as null (unknown), never a guess.
 */
final class PythonCall {

    /** The most characters of arguments examined. */
    static final int MAX_ARGS = 4000;

    final List<String> positional = new ArrayList<>();
    final Map<String, String> keywords = new LinkedHashMap<>();

    private PythonCall() {}

    /**
     * Splits the arguments of the call whose opening parenthesis is at {@code open}; returns null where the
     * call is not closed within {@link #MAX_ARGS} characters.
     */
    static PythonCall at(String text, int open) {
        int depth = 0;
        char quote = 0;
        int start = open + 1;
        PythonCall call = new PythonCall();
        int end = Math.min(text.length(), open + MAX_ARGS);
        for (int i = open; i < end; i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '\'', '"' -> quote = c;
                case '(', '[', '{' -> depth++;
                case ')', ']', '}' -> {
                    depth--;
                    if (depth == 0) {
                        call.add(text.substring(start, i));
                        return call;
                    }
                }
                case ',' -> {
                    if (depth == 1) {
                        call.add(text.substring(start, i));
                        start = i + 1;
                    }
                }
                default -> { }
            }
        }
        return null;
    }

    private void add(String arg) {
        String a = arg.strip();
        if (a.isEmpty()) {
            return;
        }
        int eq = keywordEquals(a);
        if (eq > 0) {
            keywords.put(a.substring(0, eq).strip(), a.substring(eq + 1).strip());
        } else {
            positional.add(a);
        }
    }

    /** The position of a keyword argument's {@code =}, or -1 (not {@code ==}, not inside brackets). */
    private static int keywordEquals(String a) {
        for (int i = 0; i < a.length(); i++) {
            char c = a.charAt(i);
            if (c == '=' ) {
                boolean doubled = i + 1 < a.length() && a.charAt(i + 1) == '=';
                return doubled ? -1 : i;
            }
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == ' ')) {
                return -1;
            }
        }
        return -1;
    }

    /** The argument named {@code keyword}, else the positional one at {@code index} (-1 for none), else null. */
    String arg(String keyword, int index) {
        String k = keywords.get(keyword);
        if (k != null) {
            return k;
        }
        return index >= 0 && index < positional.size() ? positional.get(index) : null;
    }

    /** An int literal, or null. */
    static Integer intOf(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        if (s.isEmpty() || s.length() > 10 || !s.chars().allMatch(Character::isDigit)) {
            return null;
        }
        long l = Long.parseLong(s);
        return l <= KerasConfig.MAX_DIM ? (int) l : null;
    }

    /** An int or a tuple/list of ints, expanded to {@code rank} entries; null otherwise. */
    static List<Integer> intsOf(String v, int rank) {
        if (v == null) {
            return null;
        }
        Integer single = intOf(v);
        if (single != null) {
            List<Integer> out = new ArrayList<>(rank);
            for (int i = 0; i < rank; i++) {
                out.add(single);
            }
            return out;
        }
        List<Integer> list = tupleOf(v, false);
        return list != null && list.size() == rank ? list : null;
    }

    /** A tuple or list of ints ({@code (28, 28, 1)}); {@code None} entries kept as null where allowed. */
    static List<Integer> tupleOf(String v, boolean allowNone) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        if (s.length() < 2 || !((s.startsWith("(") && s.endsWith(")")) || (s.startsWith("[") && s.endsWith("]")))) {
            return null;
        }
        String inner = s.substring(1, s.length() - 1).strip();
        List<Integer> out = new ArrayList<>();
        if (inner.isEmpty()) {
            return out;
        }
        for (String part : inner.split(",", 17)) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            if (allowNone && p.equals("None")) {
                out.add(null);
                continue;
            }
            Integer i = intOf(p);
            if (i == null) {
                return null;
            }
            out.add(i);
        }
        return out.size() <= 16 ? out : null;
    }

    /** A quoted string literal's content, or null. */
    static String stringOf(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        if (s.length() >= 2 && (s.charAt(0) == '\'' || s.charAt(0) == '"') && s.charAt(s.length() - 1) == s.charAt(0)) {
            return s.substring(1, s.length() - 1);
        }
        return null;
    }
}
