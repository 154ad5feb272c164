package dev.crashlab.diagnose;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a fact's fields by name through its JSON tree (record components), so matchers work on fact
 * kinds this class has never heard of.
 *
 * <p>NOTE: a dotted path walks into nested objects and maps ({@code data.AppName}); a list at any step
 * yields every element's value, so a condition on a list field holds when any element satisfies it. An empty list or
 * map yields no value (it is not "set": {@code GpuDevice.unavailable} is an empty map when every field was read).
 */
public final class FactFields {

    private final Map<Fact, JsonNode> trees = new IdentityHashMap<>();

    /** The string values of a field path; empty when the field is missing or null. */
    public List<String> values(Fact fact, String path) {
        JsonNode root = trees.computeIfAbsent(fact, f -> Facts.json().valueToTree(f));
        List<JsonNode> current = List.of(root);
        for (String segment : path.split("\\.")) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode n : current) {
                for (JsonNode item : n.isArray() ? iterable(n) : List.of(n)) {
                    JsonNode child = item.get(segment);
                    if (child != null && !child.isNull()) {
                        next.add(child);
                    }
                }
            }
            current = next;
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : current) {
            if (n.isArray()) {
                n.forEach(e -> out.add(e.isValueNode() ? e.asText() : e.toString()));
            } else if (!(n.isObject() && n.isEmpty())) { // an empty map is no value: `exists` must not hold on it
                out.add(n.isValueNode() ? n.asText() : n.toString());
            }
        }
        return out;
    }

    private static List<JsonNode> iterable(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }
}
