package dev.crashlab.kb;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads YAML front matter into {@link YamlNode}s that remember their lines, using Jackson's streaming
 * YAML parser (a data-binding tree would lose the locations).
 */
public final class FrontMatterReader {

    private static final YAMLFactory YAML = YAMLFactory.builder().build();

    private FrontMatterReader() {}

    /** Thrown for YAML that does not parse; {@code line} is 1-based in the article file. */
    public static final class YamlSyntaxException extends Exception {
        private final int line;

        YamlSyntaxException(String message, int line) {
            super(message);
            this.line = line;
        }

        /** The line the parser stopped at. */
        public int line() {
            return line;
        }
    }

    /**
     * Parses {@code yaml}, whose first line is line {@code firstLine} of the file.
     *
     * @return the root node (a mapping for a well-formed article), or null for empty front matter
     */
    public static YamlNode read(String yaml, int firstLine) throws YamlSyntaxException {
        try (JsonParser p = YAML.createParser(yaml)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return null;
            }
            return node(p, t, firstLine - 1);
        } catch (IOException | RuntimeException e) {
            int line = firstLine;
            if (e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe && jpe.getLocation() != null) {
                line = Math.max(1, jpe.getLocation().getLineNr()) + firstLine - 1;
            }
            String msg = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new YamlSyntaxException("YAML syntax: " + msg, line);
        }
    }

    private static int lineOf(JsonParser p, int offset) {
        return Math.max(1, p.currentTokenLocation().getLineNr()) + offset;
    }

    private static YamlNode node(JsonParser p, JsonToken t, int offset) throws IOException {
        int line = lineOf(p, offset);
        switch (t) {
            case START_OBJECT -> {
                Map<String, YamlNode> entries = new LinkedHashMap<>();
                Map<String, Integer> keyLines = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String key = p.currentName();
                    int keyLine = lineOf(p, offset);
                    YamlNode value = node(p, p.nextToken(), offset);
                    // a repeated key is kept once; the validator reports it through keyLines' order
                    entries.put(key, value);
                    keyLines.putIfAbsent(key, keyLine);
                }
                return new YamlNode.YMap(entries, keyLines, line);
            }
            case START_ARRAY -> {
                List<YamlNode> items = new ArrayList<>();
                for (JsonToken i = p.nextToken(); i != JsonToken.END_ARRAY; i = p.nextToken()) {
                    items.add(node(p, i, offset));
                }
                return new YamlNode.YList(items, line);
            }
            case VALUE_NULL -> {
                return new YamlNode.YScalar("", true, line);
            }
            default -> {
                return new YamlNode.YScalar(p.getText(), false, line);
            }
        }
    }
}
