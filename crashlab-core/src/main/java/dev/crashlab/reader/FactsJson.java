package dev.crashlab.reader;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.kb.FactKinds;
import dev.crashlab.parse.ParseProblem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of what a bundle says: facts (each with its {@code kind}), typed problems (each with its
 * {@code kind}) and text windows ({@code [[line, text], ...]}), written and read back to equal values.
 *
 * <p>NOTE: the one place facts are read back from JSON; a fact kind this version no longer knows is dropped on
 * reading (the background re-read replaces it).
 */
public final class FactsJson {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .findAndAddModules()
            .build();

    private FactsJson() {}

    /** The mapper used for the stored form (compact, unknown properties ignored on reading). */
    public static ObjectMapper mapper() {
        return JSON;
    }

    /** Writes facts as a JSON array; each object names its record in {@value #TYPE} (a fact's own {@code kind} field may differ). */
    public static String facts(List<Fact> facts) {
        ArrayNode arr = JSON.createArrayNode();
        for (Fact f : facts) {
            ObjectNode o = JSON.valueToTree(f);
            o.put(TYPE, f.getClass().getSimpleName());
            arr.add(o);
        }
        return write(arr);
    }

    /** The stored form's record-name key. */
    static final String TYPE = "@record";

    /** Reads facts written by {@link #facts(List)}. */
    public static List<Fact> readFacts(String json) {
        List<Fact> out = new ArrayList<>();
        for (JsonNode n : tree(json)) {
            FactKinds.get().kind(n.path(TYPE).asText()).ifPresent(type -> {
                try {
                    ObjectNode fields = ((ObjectNode) n).deepCopy();
                    fields.remove(TYPE);
                    if (!hasKindComponent(type)) {
                        fields.remove("kind");
                    }
                    out.add(JSON.treeToValue(fields, type));
                } catch (IOException | IllegalArgumentException e) {
                    // a stored fact this version cannot rebuild: left out until the bundle is read again
                }
            });
        }
        return out;
    }

    private static boolean hasKindComponent(Class<?> record) {
        for (var c : record.getRecordComponents()) {
            if (c.getName().equals("kind")) {
                return true;
            }
        }
        return false;
    }

    /** Writes problems as a JSON array of objects with a {@code kind}. */
    public static String problems(List<ParseProblem> problems) {
        ArrayNode arr = JSON.createArrayNode();
        for (ParseProblem p : problems) {
            ObjectNode o = JSON.valueToTree(p);
            o.put("kind", p.getClass().getSimpleName());
            o.remove("message");
            arr.add(o);
        }
        return write(arr);
    }

    /** Reads problems written by {@link #problems(List)}. */
    public static List<ParseProblem> readProblems(String json) {
        List<ParseProblem> out = new ArrayList<>();
        for (JsonNode n : tree(json)) {
            try {
                out.add(switch (n.path("kind").asText()) {
                    case "MalformedInput" -> new ParseProblem.MalformedInput(JSON.treeToValue(n.path("at"), SourceRef.class),
                            n.path("detail").asText());
                    case "Truncated" -> new ParseProblem.Truncated(n.path("artifact").asText(), n.path("line").asLong(),
                            n.path("detail").asText());
                    case "UnreadableText" -> new ParseProblem.UnreadableText(n.path("artifact").asText(), n.path("detail").asText());
                    default -> new ParseProblem.ParserFailure(n.path("artifact").asText(), n.path("parser").asText(),
                            n.path("error").asText());
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Writes a text window as {@code [[line, text], ...]} (the artifact is the row's). */
    public static String window(List<TextLine> lines) {
        ArrayNode arr = JSON.createArrayNode();
        for (TextLine l : lines) {
            arr.addArray().add(l.line()).add(l.text());
        }
        return write(arr);
    }

    /** Reads a window written by {@link #window(List)} for the artifact {@code path}. */
    public static List<TextLine> readWindow(String path, String json) {
        List<TextLine> out = new ArrayList<>();
        for (JsonNode n : tree(json)) {
            out.add(new TextLine(path, n.get(0).asLong(), n.get(1).asText()));
        }
        return out;
    }

    /** Writes budget hits as a JSON array. */
    public static String budgetHits(List<BudgetHit> hits) {
        return write(JSON.valueToTree(hits));
    }

    /** Reads budget hits written by {@link #budgetHits(List)}; null reads as none. */
    public static List<BudgetHit> readBudgetHits(String json) {
        List<BudgetHit> out = new ArrayList<>();
        if (json != null) {
            for (JsonNode n : tree(json)) {
                out.add(new BudgetHit(n.path("budget").asText(), n.path("artifact").asText(), n.path("message").asText()));
            }
        }
        return out;
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("stored facts are not JSON", e);
        }
    }

    private static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
