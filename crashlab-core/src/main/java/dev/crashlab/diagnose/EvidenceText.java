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
            return fill(m.says(), field -> fields.values(f, field));
        }
        String first = first(fields, f, switch (f.kind()) {
            case "Platform" -> "os";
            case "VersionFact" -> "component";
            case "BuildInfo" -> "framework";
            case "GpuDevice", "GpuProcess" -> f.kind().equals("GpuDevice") ? "name" : "processName";
            default -> "";
        });
        String lead = switch (f.kind()) {
            case "Platform" -> "the job ran on " + (first.isEmpty() ? join(fields, f, "osFamily") : first);
            case "VersionFact" -> first + " " + join(fields, f, "version") + " is installed";
            case "BuildInfo" -> "the " + first + " " + join(fields, f, "frameworkVersion") + " build in use";
            case "GpuDevice" -> "the GPU " + first;
            case "GpuProcess" -> "the GPU process " + first;
            default -> words(f.kind());
        };
        StringBuilder sb = new StringBuilder(lead.strip());
        boolean any = false;
        for (FieldCondition c : m.where()) {
            if (List.of("os", "osFamily", "component", "version", "framework", "frameworkVersion", "name", "processName").contains(c.field())
                    && !f.kind().equals("LogLine")) {
                continue;
            }
            List<String> v = fields.values(f, c.field());
            if (!v.isEmpty()) {
                sb.append(any ? ", " : ": ").append(words(c.field())).append(' ').append(shorten(String.join(", ", v)));
                any = true;
            }
        }
        return sb.toString();
    }

    // a placeholder whose fact has no value while the template is being filled: \0field\1
    private static final String MISSING = "\u0000([A-Za-z0-9_.]+)\u0001";

    /**
     * A {@code says} template filled with a fact's values. A field the fact lacks never shows as "?": a clause that
     * only names it goes ("({requested})", "{requested} requested", ": {meaning}" at the end), and elsewhere the
     * sentence says the crash did not name it ("an unnamed library could not be loaded"); a missing {@code {detail}}, a
     * qualifier, simply goes ("GPU memory ran out: 2.00 GiB requested", never "... requested an unnamed detail").
     */
    static String fill(String template, java.util.function.Function<String, List<String>> values) {
        StringBuilder sb = new StringBuilder();
        java.util.regex.Matcher r = PLACEHOLDER.matcher(template);
        int last = 0;
        while (r.find()) {
            sb.append(template, last, r.start());
            String field = r.group(1);
            List<String> v = values.apply(field);
            last = r.end();
            if (!v.isEmpty()) {
                sb.append(String.join(", ", v));
                continue;
            }
            String rest = template.substring(last);
            String own = " " + words(field);
            if (rest.startsWith(own) && (rest.length() == own.length() || !Character.isLetterOrDigit(rest.charAt(own.length())))) {
                last += own.length(); // "{requested} requested": the clause is about the missing value alone
                continue;
            }
            sb.append('\u0000').append(field).append('\u0001');
        }
        sb.append(template.substring(last));
        String s = sb.toString()
                .replaceAll("\\s*\\(\\s*" + MISSING + "\\s*\\)", "")     // "(?)" goes
                .replaceAll("\\s*:\\s*" + MISSING + "\\s*$", "")            // a trailing ": ?" goes
                .replaceAll("^" + MISSING + "\\s*:\\s*", "")                // a leading "?: " goes
                .replaceAll("\\s*\u0000detail\u0001", "");                   // {detail} only qualifies: it goes anywhere
        s = java.util.regex.Pattern.compile(MISSING).matcher(s)
                .replaceAll(x -> java.util.regex.Matcher.quoteReplacement("an unnamed " + words(x.group(1))));
        return s.replaceAll(" {2,}", " ").replaceAll(" ([,.;:])", "$1").strip();
    }

    private static String first(FactFields fields, Fact f, String field) {
        return field.isEmpty() ? "" : join(fields, f, field);
    }

    private static String join(FactFields fields, Fact f, String field) {
        return String.join(", ", fields.values(f, field));
    }

    /** A record or field name as words: {@code driverModel} -> "driver model", {@code VersionFact} -> "version fact". */
    static String words(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replace('.', ' ').toLowerCase(java.util.Locale.ROOT);
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
