package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KbArticle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every KB article has a fixture bundle of our own in {@code src/test/resources/kb-fixtures/<id>/} that the
 * engine ranks first (kb-articles/README.md, "Fixtures").
 */
class KbFixturesTest {

    static final Path FIXTURES = Path.of("src/test/resources/kb-fixtures");
    static KnowledgeSource source;
    static DiagnosisEngine engine;

    @BeforeAll
    static void load() {
        source = KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat"));
        engine = KnowledgeOptions.engine(source);
    }

    static Stream<String> articles() {
        return KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")).kb().articles().stream().map(KbArticle::id);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("articles")
    void fixtureRanksItsArticleFirst(String id) throws Exception {
        Path dir = FIXTURES.resolve(id);
        assertThat(dir).as("every article needs a fixture bundle folder " + dir).isDirectory();
        Diagnosis d = engine.diagnose(OfflineBundle.read(List.of(dir), p -> false));
        List<String> ranked = d.hypotheses().stream().map(Hypothesis::id).toList();
        assertThat(ranked).as("ranking for fixture " + id + " (scores: " + d.hypotheses().stream().limit(3)
                .map(h -> h.id() + "=" + h.score()).toList() + ")").first().isEqualTo(id);
        assertThat(d.hypotheses().getFirst().evidence()).as("the top hypothesis shows its evidence").isNotEmpty();
    }

    @org.junit.jupiter.api.Test
    void theShippedKnowledgeBaseAndCompatTablesLoadWithoutProblems() {
        assertThat(source.problems()).isEmpty();
        assertThat(source.kb().articles()).hasSizeGreaterThanOrEqualTo(23);
    }

    @org.junit.jupiter.api.Test
    void noFixtureWithoutAnArticle() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(FIXTURES), "no kb-fixtures folder yet");
        List<String> ids = articles().toList();
        try (Stream<Path> dirs = Files.list(FIXTURES)) {
            assertThat(dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).toList()).allMatch(ids::contains);
        }
    }
}
