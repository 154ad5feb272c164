package dev.crashlab.kb;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Holds one node of an article's front matter together with the line it started on, so that every
 * validation error can say {@code file:line}.
 *
 * <p>NOTE: scalars keep the text as written (YAML's number and boolean typing is not applied), so
 * {@code hex: 0xC0000409} stays the string {@code 0xC0000409}.
 */
public sealed interface YamlNode {

    /** The 1-based line in the article file where this node starts. */
    int line();

    /** A mapping; keys keep their order and their own lines. */
    record YMap(Map<String, YamlNode> entries, Map<String, Integer> keyLines, int line) implements YamlNode {
        public YMap {
            entries = new LinkedHashMap<>(entries);
            keyLines = new LinkedHashMap<>(keyLines);
        }
    }

    /** A sequence. */
    record YList(List<YamlNode> items, int line) implements YamlNode {
        public YList {
            items = List.copyOf(items);
        }
    }

    /** A scalar as written; {@code quoted} is false for plain scalars (null, numbers, booleans). */
    record YScalar(String text, boolean isNull, int line) implements YamlNode {}

    /** Describes what a node is, for error messages. */
    static String describe(YamlNode n) {
        return switch (n) {
            case YMap m -> "a mapping";
            case YList l -> "a list";
            case YScalar s -> s.isNull() ? "empty" : "\"" + s.text() + "\"";
        };
    }
}
