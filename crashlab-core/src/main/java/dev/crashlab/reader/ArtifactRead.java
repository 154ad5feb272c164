package dev.crashlab.reader;

import dev.crashlab.reader.ParseStatus;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Fact;
import dev.crashlab.parse.ParseProblem;
import java.util.List;

/**
 * What one pass over one artifact gave.
 *
 * @param path the artifact's path in the bundle
 * @param type the sniffed type's name
 * @param status how parsing went
 * @param facts the facts its parsers read (duplicates merged)
 * @param problems what they could not read
 * @param window the lines kept for the diagnosis's text matchers (head and tail; empty for binary artifacts)
 * @param bytesRead how many of its bytes were read (less than its size when a budget cut it)
 */
public record ArtifactRead(String path, String type, ParseStatus status, List<Fact> facts, List<ParseProblem> problems,
                           List<TextLine> window, long bytesRead) {

    public ArtifactRead {
        facts = List.copyOf(facts);
        problems = List.copyOf(problems);
        window = List.copyOf(window);
    }

    /** The problems as messages, as the API and CLI print them. */
    public List<String> problemMessages() {
        return problems.stream().map(p -> p.getClass().getSimpleName() + ": " + p.message()).toList();
    }
}
