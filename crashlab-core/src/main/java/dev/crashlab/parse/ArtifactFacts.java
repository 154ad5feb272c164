package dev.crashlab.parse;

import dev.crashlab.fact.Fact;
import java.util.List;

/**
 * The facts and problems read from one artifact: the unit the CLI's {@code facts --json} and the API's
 * {@code /facts} return, one per artifact.
 *
 * @param path the artifact's path in the bundle
 * @param type the sniffed type
 * @param facts what the parsers read
 * @param problems what they could not read, as messages
 */
public record ArtifactFacts(String path, String type, List<Fact> facts, List<String> problems) {

    /** Parses one artifact with every parser for its type. */
    public static ArtifactFacts of(ParseInput input) {
        ParseResult r = Parsers.parse(input);
        return new ArtifactFacts(input.path(), input.type().name(), r.facts(),
                r.problems().stream().map(p -> p.getClass().getSimpleName() + ": " + p.message()).toList());
    }
}
