package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crashlab.fact.Facts;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Golden-file checks for parsers: each fixture {@code fixtures/<parser>/<case>} has its expected output in
 * {@code <case>.facts.json} beside it (canonical JSON: sorted keys, indented).
 *
 * <p>To regenerate after a deliberate change: {@code scripts/mvn test -Dtest=<ParserTest>
 * -Dcrashlab.golden.update=true}, then review the diff like code.
 */
public final class GoldenFiles {

    /** Where parser fixtures live. */
    public static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/fixtures");
    static final String SUFFIX = ".facts.json";
    static final boolean UPDATE = Boolean.getBoolean("crashlab.golden.update");

    private GoldenFiles() {}

    /** Returns the fixture files of one parser (everything in its folder but the golden files). */
    public static List<Path> fixtures(String parserName) {
        Path dir = FIXTURES.resolve(parserName);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().endsWith(SUFFIX))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Returns the golden files of one parser (a golden without its fixture beside it is of a fixture test code writes). */
    public static List<Path> goldens(String parserName) {
        Path dir = FIXTURES.resolve(parserName);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Returns the golden file of a fixture. */
    public static Path goldenOf(Path fixture) {
        return fixture.resolveSibling(fixture.getFileName() + SUFFIX);
    }

    /** Renders a parse result canonically: facts as JSON, problems as their kind and message. */
    public static String render(ParseResult result) {
        ObjectNode root = Facts.json().createObjectNode();
        root.set("facts", Facts.json().valueToTree(result.facts()));
        var problems = root.putArray("problems");
        result.problems().forEach(p -> problems.add(p.getClass().getSimpleName() + ": " + p.message()));
        try {
            return Facts.json().writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses the fixture with {@code parser} as {@code type} and compares with (or, when updating, writes) its golden file. */
    public static void check(ArtifactParser parser, ArtifactType type, Path fixture) throws IOException {
        check(parser, type, fixture, goldenOf(fixture));
    }

    /**
     * As {@link #check(ArtifactParser, ArtifactType, Path)} for a binary fixture that test code writes into a temporary
     * folder: its golden file stays in the parser's fixture folder.
     */
    public static void check(ArtifactParser parser, ArtifactType type, Path fixture, Path golden) throws IOException {
        ParseResult result = parser.parse(new ParseInput(fixture.getFileName().toString(), type, fixture));
        String actual = render(result);
        if (UPDATE) {
            Files.writeString(golden, actual);
            return;
        }
        assertThat(golden).as("golden file for %s (create it with -Dcrashlab.golden.update=true)", fixture).exists();
        assertThat(actual).as("facts of %s (regenerate with -Dcrashlab.golden.update=true)", fixture)
                .isEqualTo(Files.readString(golden));
    }
}
