package dev.crashlab.kb;

import dev.crashlab.kb.YamlNode.YList;
import dev.crashlab.kb.YamlNode.YMap;
import dev.crashlab.kb.YamlNode.YScalar;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and validates one article ({@code kb-articles/<id>.md}) into a {@link KbArticle}, collecting every
 * problem as {@code file:line: message} rather than stopping at the first.
 */
public final class KbArticleReader {

    private static final Pattern KEBAB = Pattern.compile("[a-z0-9]+(?:-[a-z0-9]+)*");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_.]+)}");
    private static final Set<String> TOP_KEYS = Set.of("id", "title", "category", "platforms", "prior", "matchers",
            "against", "remedies", "confirm", "references", "specializes");
    private static final Set<String> MATCHER_KEYS = Set.of("id", "fact", "where", "text", "compat", "outcome", "weight",
            "specific", "says", "all", "source");
    /** A public web address: http(s), a dotted host name (no bare name, no IP address), an optional path. */
    private static final Pattern PUBLIC_URL = Pattern.compile("https?://(?!localhost\\b)(?:[A-Za-z0-9-]+\\.)+[A-Za-z]{2,}(?::\\d+)?(?:[/?#]\\S*)?");
    private static final Set<String> PART_KEYS = Set.of("fact", "where", "text", "compat", "outcome", "absent");
    private static final Set<String> OUTCOMES = Set.of("mismatch", "ok", "unknown");

    private final FactKinds kinds;
    private final Set<String> compatChecks;

    /**
     * @param kinds the fact kinds articles may name
     * @param compatChecks the compatibility check ids articles may name
     */
    public KbArticleReader(FactKinds kinds, Set<String> compatChecks) {
        this.kinds = kinds;
        this.compatChecks = Set.copyOf(compatChecks);
    }

    /** The article, or null when it has errors (then {@code problems} holds them). */
    public KbArticle read(String fileName, String content, List<KbProblem> problems) {
        Errors err = new Errors(fileName, problems);
        int before = problems.size();
        String text = content.startsWith("\uFEFF") ? content.substring(1) : content;
        List<String> lines = text.lines().toList();
        if (lines.isEmpty() || !lines.getFirst().strip().equals("---")) {
            err.at(1, "an article starts with a line '---', then YAML front matter, then '---' and the Markdown body");
            return null;
        }
        int end = -1;
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("---")) {
                end = i;
                break;
            }
        }
        if (end < 0) {
            err.at(1, "the front matter is not closed by a second '---' line");
            return null;
        }
        String yaml = String.join("\n", lines.subList(1, end));
        String body = String.join("\n", lines.subList(end + 1, lines.size())).strip();
        YamlNode root;
        try {
            root = FrontMatterReader.read(yaml, 2);
        } catch (FrontMatterReader.YamlSyntaxException e) {
            err.at(e.line(), e.getMessage());
            return null;
        }
        if (!(root instanceof YMap top)) {
            err.at(2, "the front matter must be a mapping of keys (id:, title:, ...)");
            return null;
        }
        top.keyLines().forEach((k, line) -> {
            if (!TOP_KEYS.contains(k)) {
                err.at(line, "unknown key '" + k + "' (allowed: " + String.join(", ", new java.util.TreeSet<>(TOP_KEYS)) + ")");
            }
        });
        String id = requiredString(top, "id", err);
        String expectedId = fileName.replaceAll(".*/", "").replaceFirst("\\.md$", "");
        if (id != null) {
            if (!KEBAB.matcher(id).matches()) {
                err.at(top.keyLines().get("id"), "id '" + id + "' must be kebab-case (a-z, 0-9, single hyphens)");
            } else if (!id.equals(expectedId)) {
                err.at(top.keyLines().get("id"), "id '" + id + "' differs from the file name '" + expectedId + ".md'");
            }
        }
        String title = requiredString(top, "title", err);
        String category = requiredString(top, "category", err);
        if (category != null && !KbArticle.CATEGORIES.contains(category)) {
            err.at(top.keyLines().get("category"), "unknown category '" + category + "' (one of " + String.join(", ", KbArticle.CATEGORIES) + ")");
        }
        List<String> platforms = stringList(top, "platforms", err);
        for (String p : platforms) {
            if (!KbArticle.PLATFORMS.contains(p)) {
                err.at(top.keyLines().get("platforms"), "unknown platform '" + p + "' (one of " + String.join(", ", KbArticle.PLATFORMS) + ")");
            }
        }
        double prior = KbArticle.DEFAULT_PRIOR;
        if (top.entries().get("prior") instanceof YamlNode n) {
            Double d = number(n);
            if (d == null || d <= 0 || d >= 1) {
                err.at(n.line(), "prior must be a number with 0 < prior < 1, got " + YamlNode.describe(n));
            } else {
                prior = d;
            }
        }
        String specializes = null;
        if (top.entries().containsKey("specializes")) {
            specializes = scalar(top.entries().get("specializes"));
            if (specializes == null || !KEBAB.matcher(specializes).matches() || specializes.equals(id)) {
                err.at(top.keyLines().get("specializes"), "specializes: names another article's id (kebab-case), got "
                        + YamlNode.describe(top.entries().get("specializes")));
                specializes = null;
            }
        }
        List<Matcher> matchers = matchers(top, "matchers", true, err);
        List<Matcher> against = matchers(top, "against", false, err);
        if (matchers.isEmpty() && top.entries().containsKey("matchers") && problems.size() == before) {
            err.at(top.keyLines().get("matchers"), "matchers: needs at least one matcher");
        } else if (!top.entries().containsKey("matchers")) {
            err.at(2, "missing 'matchers:' (at least one matcher)");
        }
        List<Remedy> remedies = remedies(top, err);
        List<String> confirm = stringList(top, "confirm", err);
        List<String> references = stringList(top, "references", err);
        if (references.isEmpty() && !top.entries().containsKey("references")) {
            err.at(2, "missing 'references:' (cite at least one source)");
        }
        discriminatingRulesHaveSources(top, references, err);
        if (body.isBlank()) {
            err.at(end + 1, "the Markdown body after the front matter is empty");
        }
        if (problems.size() > before) {
            return null;
        }
        return new KbArticle(id, title, category, platforms, prior, matchers, against, remedies, confirm, references,
                body, fileName, specializes);
    }

    /**
     * Checks that every discriminating rule (a matcher under {@code matchers:} with {@code specific: true}) names a
     * public source: its own {@code source:} (a public http(s) address), or else at least one public address under
     * the article's {@code references:}. NOTE: issue 29; a rule that only one corpus thread supports must still say
     * where its mechanism is documented.
     */
    private static void discriminatingRulesHaveSources(YMap top, List<String> references, Errors err) {
        if (!(top.entries().get("matchers") instanceof YList list)) {
            return;
        }
        boolean articleHasSource = references.stream().anyMatch(r -> PUBLIC_URL.matcher(r.strip()).matches());
        for (YamlNode item : list.items()) {
            if (!(item instanceof YMap m)) {
                continue;
            }
            YamlNode own = m.entries().get("source");
            if (own != null) {
                String url = scalar(own);
                if (url == null || !PUBLIC_URL.matcher(url.strip()).matches()) {
                    err.at(own.line(), "source: must be a public web address (https://host/path), got " + YamlNode.describe(own));
                }
                continue;
            }
            boolean specific = "true".equalsIgnoreCase(scalar(m.entries().get("specific")));
            if (specific && !articleHasSource) {
                String id = scalar(m.entries().get("id"));
                err.at(m.line(), "matcher " + (id == null ? "" : "'" + id + "' ") + "is a discriminating rule (specific: true) but names"
                        + " no public source: give it 'source: https://...' or list a public web address under references:");
            }
        }
    }

    private List<Matcher> matchers(YMap top, String key, boolean evidence, Errors err) {
        YamlNode n = top.entries().get(key);
        if (n == null || n instanceof YScalar s && s.isNull()) {
            return List.of();
        }
        if (!(n instanceof YList list)) {
            err.at(n.line(), key + ": must be a list of matchers");
            return List.of();
        }
        List<Matcher> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (YamlNode item : list.items()) {
            if (!(item instanceof YMap m)) {
                err.at(item.line(), key + ": each matcher is a mapping (id:, fact:/text:/compat:, weight:, ...)");
                continue;
            }
            Matcher matcher = matcher(m, key, evidence, err);
            if (matcher != null) {
                if (!ids.add(matcher.id())) {
                    err.at(m.line(), "duplicate matcher id '" + matcher.id() + "' in " + key);
                }
                out.add(matcher);
            }
        }
        return out;
    }

    private Matcher matcher(YMap m, String list, boolean evidence, Errors err) {
        return matcher(m, list, evidence, err, null);
    }

    /** Reads a matcher, or (with {@code partOf} set) one part of an {@code all:} matcher. */
    private Matcher matcher(YMap m, String list, boolean evidence, Errors err, String partOf) {
        int problemsBefore = err.count();
        Set<String> allowed = partOf == null ? MATCHER_KEYS : PART_KEYS;
        m.keyLines().forEach((k, line) -> {
            if (!allowed.contains(k)) {
                err.at(line, "unknown " + (partOf == null ? "matcher" : "all: part") + " key '" + k + "' (allowed: "
                        + String.join(", ", new java.util.TreeSet<>(allowed)) + ")");
            }
        });
        String id = partOf == null ? requiredString(m, "id", err) : partOf;
        int kindsGiven = (m.entries().containsKey("fact") ? 1 : 0) + (m.entries().containsKey("text") ? 1 : 0)
                + (m.entries().containsKey("compat") ? 1 : 0) + (m.entries().containsKey("all") ? 1 : 0);
        if (kindsGiven != 1) {
            err.at(m.line(), (partOf == null ? "matcher " + (id == null ? "" : "'" + id + "' ") + "needs exactly one of fact:, text:, compat:, all:"
                    : "an all: part needs exactly one of fact:, text:, compat:"));
            return null;
        }
        boolean absent = false;
        if (m.entries().get("absent") instanceof YamlNode ab) {
            String t = scalar(ab);
            if (!"true".equalsIgnoreCase(t) && !"false".equalsIgnoreCase(t)) {
                err.at(ab.line(), "absent must be true or false");
            }
            absent = "true".equalsIgnoreCase(t);
        }
        if (partOf != null) {
            return part(m, id, absent, err, problemsBefore);
        }
        Double weight = null;
        YamlNode w = m.entries().get("weight");
        if (w == null) {
            err.at(m.line(), "matcher '" + id + "' needs a weight in (0, 1]");
        } else {
            weight = number(w);
            if (weight == null || weight <= 0 || weight > 1) {
                err.at(w.line(), "weight must be a number in (0, 1], got " + YamlNode.describe(w));
                weight = null;
            }
        }
        boolean specific = false;
        if (m.entries().get("specific") instanceof YamlNode s) {
            String t = scalar(s);
            if (!"true".equalsIgnoreCase(t) && !"false".equalsIgnoreCase(t)) {
                err.at(s.line(), "specific must be true or false");
            }
            specific = "true".equalsIgnoreCase(t);
        }
        String says = m.entries().containsKey("says") ? scalar(m.entries().get("says")) : null;
        if (m.entries().containsKey("all")) {
            List<Matcher> parts = new ArrayList<>();
            if (m.entries().get("all") instanceof YList pl) {
                for (YamlNode item : pl.items()) {
                    if (item instanceof YMap pm) {
                        Matcher p = matcher(pm, list, evidence, err, id == null ? "?" : id);
                        if (p != null) {
                            parts.add(p);
                        }
                    } else {
                        err.at(item.line(), "all: each part is a mapping (fact:/text:/compat:, optional absent: true)");
                    }
                }
            } else {
                err.at(m.keyLines().get("all"), "all: must be a list of parts");
            }
            if (parts.stream().noneMatch(p -> !p.absent()) && err.count() == problemsBefore) {
                err.at(m.keyLines().get("all"), "all: needs at least one part that is not absent: true (an absence alone is no evidence)");
            }
            if (err.count() > problemsBefore || id == null || weight == null) {
                return null;
            }
            return new Matcher(id, Matcher.Source.ALL, null, List.of(), null, null, null, weight, evidence && specific, says,
                    m.line(), parts, false);
        }
        return part(m, id, false, err, problemsBefore, weight, evidence && specific, says);
    }

    private Matcher part(YMap m, String id, boolean absent, Errors err, int problemsBefore) {
        return part(m, id, absent, err, problemsBefore, 1.0, false, null);
    }

    private Matcher part(YMap m, String id, boolean absent, Errors err, int problemsBefore, Double weight, boolean specific,
            String says) {
        Matcher.Source source;
        String fact = null;
        List<FieldCondition> where = new ArrayList<>();
        TimedRegex text = null;
        String compat = null;
        String outcome = null;
        if (m.entries().containsKey("fact")) {
            source = Matcher.Source.FACT;
            fact = scalar(m.entries().get("fact"));
            int factLine = m.keyLines().get("fact");
            if (fact == null || kinds.kind(fact).isEmpty()) {
                err.at(factLine, "unknown fact kind '" + fact + "' (known: " + String.join(", ", kinds.names()) + ")");
                fact = null;
            }
            YamlNode wn = m.entries().get("where");
            if (wn instanceof YMap wm) {
                for (var e : wm.entries().entrySet()) {
                    int line = wm.keyLines().get(e.getKey());
                    if (fact != null && !kinds.hasField(fact, e.getKey())) {
                        err.at(line, "fact kind " + fact + " has no field '" + e.getKey() + "' (fields: "
                                + String.join(", ", kinds.fields(fact)) + ")");
                        continue;
                    }
                    Condition c = condition(e.getValue(), err);
                    if (c != null) {
                        where.add(new FieldCondition(e.getKey(), c));
                    }
                }
            } else if (wn != null && !(wn instanceof YScalar s && s.isNull())) {
                err.at(wn.line(), "where: must be a mapping of field: condition");
            }
            if (says != null && fact != null) {
                var ph = PLACEHOLDER.matcher(says);
                while (ph.find()) {
                    if (!kinds.hasField(fact, ph.group(1))) {
                        err.at(m.keyLines().get("says"), "says: {" + ph.group(1) + "} is not a field of " + fact);
                    }
                }
            }
        } else if (m.entries().containsKey("text")) {
            source = Matcher.Source.TEXT;
            String t = scalar(m.entries().get("text"));
            int line = m.keyLines().get("text");
            try {
                text = TimedRegex.ofLiteral(t == null ? "" : t);
            } catch (java.util.regex.PatternSyntaxException e) {
                err.at(line, "bad regex " + t + ": " + e.getDescription());
            } catch (IllegalArgumentException e) {
                err.at(line, e.getMessage());
            }
        } else {
            source = Matcher.Source.COMPAT;
            compat = scalar(m.entries().get("compat"));
            int line = m.keyLines().get("compat");
            if (compat == null || !compatChecks.contains(compat)) {
                err.at(line, "unknown compatibility check '" + compat + "' (known: " + String.join(", ", new java.util.TreeSet<>(compatChecks)) + ")");
            }
            outcome = m.entries().containsKey("outcome") ? scalar(m.entries().get("outcome")) : null;
            if (outcome == null || !OUTCOMES.contains(outcome.toLowerCase(Locale.ROOT))) {
                err.at(m.keyLines().getOrDefault("outcome", m.line()), "compat matcher needs outcome: mismatch, ok or unknown");
            } else {
                outcome = outcome.toLowerCase(Locale.ROOT);
            }
        }
        if (err.count() > problemsBefore || id == null || weight == null) {
            return null;
        }
        return new Matcher(id, source, fact, where, text, compat, outcome, weight, specific, says, m.line(), List.of(), absent);
    }

    private static Condition condition(YamlNode n, Errors err) {
        try {
            return switch (n) {
                case YScalar s when s.isNull() -> throw new IllegalArgumentException("empty condition (write exists or absent)");
                case YScalar s -> Condition.parse(s.text());
                case YList l -> {
                    List<Condition> options = new ArrayList<>();
                    for (YamlNode i : l.items()) {
                        if (!(i instanceof YScalar s) || s.isNull()) {
                            throw new IllegalArgumentException("a list condition holds plain values");
                        }
                        options.add(Condition.parse(s.text()));
                    }
                    yield new Condition.AnyOf(options, l.items().stream().map(i -> ((YScalar) i).text()).toList().toString());
                }
                case YMap m -> throw new IllegalArgumentException("a condition is a value, a /regex/, a comparison, a list, exists or absent");
            };
        } catch (IllegalArgumentException e) {
            err.at(n.line(), e.getMessage());
            return null;
        }
    }

    private List<Remedy> remedies(YMap top, Errors err) {
        YamlNode n = top.entries().get("remedies");
        if (n == null) {
            err.at(2, "missing 'remedies:' (ordered, concrete steps per platform)");
            return List.of();
        }
        if (!(n instanceof YList list)) {
            err.at(n.line(), "remedies: must be a list of {platform:, steps:}");
            return List.of();
        }
        List<Remedy> out = new ArrayList<>();
        for (YamlNode item : list.items()) {
            if (!(item instanceof YMap m)) {
                err.at(item.line(), "each remedy is a mapping {platform:, steps:}");
                continue;
            }
            String platform = m.entries().containsKey("platform") ? scalar(m.entries().get("platform")) : "any";
            if (!"any".equals(platform) && !KbArticle.PLATFORMS.contains(platform)) {
                err.at(m.keyLines().get("platform"), "unknown remedy platform '" + platform + "' (any, " + String.join(", ", KbArticle.PLATFORMS) + ")");
            }
            List<String> steps = stringList(m, "steps", err);
            if (steps.isEmpty()) {
                err.at(m.line(), "a remedy needs steps:");
            }
            out.add(new Remedy(platform, steps));
        }
        return out;
    }

    private static String requiredString(YMap m, String key, Errors err) {
        YamlNode n = m.entries().get(key);
        if (n == null) {
            err.at(m.line(), "missing '" + key + ":'");
            return null;
        }
        String s = scalar(n);
        if (s == null || s.isBlank()) {
            err.at(n.line(), key + ": must be a non-empty value");
            return null;
        }
        return s;
    }

    private static List<String> stringList(YMap m, String key, Errors err) {
        YamlNode n = m.entries().get(key);
        if (n == null || n instanceof YScalar s && s.isNull()) {
            return List.of();
        }
        if (n instanceof YScalar s) {
            return List.of(s.text());
        }
        if (!(n instanceof YList l)) {
            err.at(n.line(), key + ": must be a list");
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (YamlNode i : l.items()) {
            if (i instanceof YScalar s && !s.isNull()) {
                out.add(s.text());
            } else {
                err.at(i.line(), key + ": each entry is a plain string (quote it if it contains ': ')");
            }
        }
        return out;
    }

    private static String scalar(YamlNode n) {
        return n instanceof YScalar s && !s.isNull() ? s.text() : null;
    }

    private static Double number(YamlNode n) {
        String s = scalar(n);
        if (s == null) {
            return null;
        }
        try {
            return Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Collects problems for one file. */
    private record Errors(String file, List<KbProblem> out) {
        void at(Integer line, String message) {
            out.add(new KbProblem(file, line == null ? 0 : line, message));
        }

        int count() {
            return out.size();
        }
    }
}
