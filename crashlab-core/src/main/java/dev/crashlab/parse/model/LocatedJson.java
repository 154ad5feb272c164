package dev.crashlab.parse.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Reads a JSON document into a tree that remembers where each object starts and ends, so a fact can cite
 * the line and the exact text of the layer it came from.
 *
 * <p>NOTE: the tree is built without recursion (a hostile nesting depth cannot overflow the stack; it is
 * also capped), and its size is capped in nodes: a model description is small, a giant file is refused
 * with {@link TooLarge} rather than allowed to fill the heap.
 */
final class LocatedJson {

    /** The deepest nesting read; real models nest a few dozen levels. */
    static final int MAX_DEPTH = 256;
    /** The most JSON values kept; the largest real TF.js topology has a few tens of thousands. */
    static final int MAX_NODES = 2_000_000;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private final String text;
    private final JsonNode root;
    private final Map<JsonNode, long[]> spans;

    /** Where an object starts: its 1-based line and char offsets of its first and past-last character. */
    record Span(long line, int start, int end) {}

    /** The document is larger than {@link #MAX_NODES} values. */
    static final class TooLarge extends IOException {
        TooLarge(String message) {
            super(message);
        }
    }

    private LocatedJson(String text, JsonNode root, Map<JsonNode, long[]> spans) {
        this.text = text;
        this.root = root;
        this.spans = spans;
    }

    /**
     * Parses {@code text}; throws {@link com.fasterxml.jackson.core.JacksonException} for malformed JSON and
     * {@link TooLarge} for oversized documents.
     */
    static LocatedJson parse(String text) throws IOException {
        Map<JsonNode, long[]> spans = new IdentityHashMap<>();
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        Deque<JsonNode> stack = new ArrayDeque<>();
        Deque<String> names = new ArrayDeque<>();
        JsonNode root = null;
        long count = 0;
        try (JsonParser p = FACTORY.createParser(text)) {
            String field = null;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    field = p.currentName();
                    continue;
                }
                if (++count > MAX_NODES) {
                    throw new TooLarge("more than " + MAX_NODES + " JSON values");
                }
                JsonNode value;
                switch (t) {
                    case START_OBJECT -> {
                        ObjectNode o = nodes.objectNode();
                        spans.put(o, new long[] {p.currentTokenLocation().getLineNr(),
                                p.currentTokenLocation().getCharOffset(), -1});
                        value = o;
                    }
                    case START_ARRAY -> value = nodes.arrayNode();
                    case END_OBJECT, END_ARRAY -> {
                        JsonNode done = stack.pop();
                        if (done.isObject()) {
                            spans.get(done)[2] = p.currentTokenLocation().getCharOffset() + 1;
                        }
                        field = names.pop();
                        if (stack.isEmpty()) {
                            root = done;
                        }
                        continue;
                    }
                    case VALUE_STRING -> value = nodes.textNode(p.getText());
                    case VALUE_NUMBER_INT -> value = p.getNumberType() == JsonParser.NumberType.INT
                            ? nodes.numberNode(p.getIntValue()) : nodes.numberNode(p.getLongValue());
                    case VALUE_NUMBER_FLOAT -> value = nodes.numberNode(p.getDoubleValue());
                    case VALUE_TRUE -> value = nodes.booleanNode(true);
                    case VALUE_FALSE -> value = nodes.booleanNode(false);
                    case VALUE_NULL -> value = nodes.nullNode();
                    default -> value = nodes.missingNode();
                }
                JsonNode parent = stack.peek();
                if (parent instanceof ObjectNode o) {
                    o.set(field == null ? "" : field, value);
                } else if (parent instanceof ArrayNode a) {
                    a.add(value);
                }
                if (value.isContainerNode()) {
                    stack.push(value);
                    names.push(field == null ? "" : field);
                    field = null;
                } else if (parent == null) {
                    root = value;
                }
            }
        }
        if (!stack.isEmpty()) {
            throw new com.fasterxml.jackson.core.JsonParseException(null, "unexpected end of input");
        }
        return new LocatedJson(text, root, spans);
    }

    /** Returns the document's root value (null for an empty document). */
    JsonNode root() {
        return root;
    }

    /** Returns where {@code object} was read, or null for a node not from this document. */
    Span span(JsonNode object) {
        long[] s = spans.get(object);
        if (s == null) {
            return null;
        }
        int start = (int) Math.max(0, Math.min(s[1], text.length()));
        int end = s[2] < 0 ? text.length() : (int) Math.max(start, Math.min(s[2], text.length()));
        return new Span(s[0], start, end);
    }

    /** Returns the exact text of {@code object} as written, cut to {@code max} characters. */
    String textOf(JsonNode object, int max) {
        Span s = span(object);
        if (s == null) {
            return "";
        }
        return text.substring(s.start(), Math.min(s.end(), s.start() + max));
    }
}
