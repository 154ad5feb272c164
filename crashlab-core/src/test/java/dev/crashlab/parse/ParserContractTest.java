package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every registered parser has a stable name, something to read, fixtures and golden outputs. */
class ParserContractTest {

    @Test
    void everyParserIsNamedAndHasFixturesWithGoldenFiles() {
        Set<String> names = new HashSet<>();
        for (ArtifactParser p : Parsers.all()) {
            assertThat(p.name()).as("parser name").matches("[a-z0-9]+(-[a-z0-9]+)*");
            assertThat(names.add(p.name())).as("unique name %s", p.name()).isTrue();
            assertThat(p.accepts()).as("types %s reads", p.name()).isNotEmpty();
            List<Path> fixtures = GoldenFiles.fixtures(p.name());
            // binary fixtures are written by test code at test time (EVTX): only their golden files are committed
            assertThat(GoldenFiles.goldens(p.name())).as("golden files in %s", GoldenFiles.FIXTURES.resolve(p.name())).isNotEmpty();
            for (Path f : fixtures) {
                assertThat(Files.exists(GoldenFiles.goldenOf(f))).as("golden file of %s", f).isTrue();
            }
        }
    }

    @Test
    void aParserThatThrowsBecomesAProblem() throws Exception {
        Path file = Files.createTempFile("crashlab-contract", ".txt");
        try {
            ParseInput input = new ParseInput("x.txt", dev.crashlab.sniff.ArtifactType.TEXT, file);
            ArtifactParser broken = new ArtifactParser() {
                @Override
                public String name() {
                    return "broken";
                }

                @Override
                public Set<dev.crashlab.sniff.ArtifactType> accepts() {
                    return Set.of(dev.crashlab.sniff.ArtifactType.TEXT);
                }

                @Override
                public ParseResult parse(ParseInput in) {
                    throw new IllegalStateException("boom");
                }
            };
            ParseResult r = Parsers.run(List.of(broken), input);
            assertThat(r.facts()).isEmpty();
            assertThat(r.problems()).singleElement().isInstanceOf(ParseProblem.ParserFailure.class)
                    .extracting(ParseProblem::message).asString().contains("broken", "boom");
        } finally {
            Files.delete(file);
        }
    }
}
