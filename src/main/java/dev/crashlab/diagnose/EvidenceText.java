package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.kb.FieldCondition;
import dev.crashlab.kb.Matcher;
import java.util.List;
import java.util.regex.Pattern;

/** Writes the sentence a matched matcher shows: its {@code says} template filled from the fact, or a plain default. */
final class EvidenceText {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_.]+)}");

    private EvidenceText() {}

    static String forFact(Matcher m, Fact f, FactFields fields) {
        if (m.says() != null && !m.says().isBlank()) {
            return PLACEHOLDER.matcher(m.says()).replaceAll(r -> {
                List<String> v = fields.values(f, r.group(1));
                return java.util.regex.Matcher.quoteReplacement(v.isEmpty() ? "?" : String.join(", ", v));
            });
        }
        StringBuilder sb = new StringBuilder(f.kind());
        for (FieldCondition c : m.where()) {
            List<String> v = fields.values(f, c.field());
            if (!v.isEmpty()) {
                sb.append(sb.length() == f.kind().length() ? ": " : ", ").append(c.field()).append(' ').append(shorten(String.join(", ", v)));
            }
        }
        return sb.toString();
    }

    static String forText(Matcher m, String line) {
        if (m.says() != null && !m.says().isBlank()) {
            return m.says();
        }
        return "the log says: " + shorten(line.strip());
    }

    static String shorten(String s) {
        return s.length() > 160 ? s.substring(0, 157) + "..." : s;
    }
}
