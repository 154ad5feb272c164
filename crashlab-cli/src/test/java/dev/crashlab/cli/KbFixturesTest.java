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
 * engine ranks first (kb-articles/README.md, "Fixtures"); {@code src/test/resources/kb-fixtures-versus/<id>/<name>/}
 * holds further bundles of ours, each where {@code <id>} must beat a close rival (a cause against the symptom it
 * explains, one framework's message against another's).
 */
class KbFixturesTest {

    static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/kb-fixtures");
    static final Path VERSUS = Path.of("crashlab-core/src/test/resources/kb-fixtures-versus");
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
        assertRanksFirst(id, dir);
    }

    static Stream<String> versusBundles() throws Exception {
        try (Stream<Path> dirs = Files.walk(VERSUS, 2)) {
            return dirs.filter(p -> p.getNameCount() == VERSUS.getNameCount() + 2 && Files.isDirectory(p))
                    .map(p -> VERSUS.relativize(p).toString().replace('\\', '/')).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("versusBundles")
    void versusBundleRanksItsArticleFirst(String bundle) throws Exception {
        String id = bundle.substring(0, bundle.indexOf('/'));
        assertThat(articles().toList()).as("kb-fixtures-versus/" + bundle + " names an article").contains(id);
        assertRanksFirst(id, VERSUS.resolve(bundle));
    }

    private static void assertRanksFirst(String id, Path dir) throws Exception {
        Diagnosis d = engine.diagnose(OfflineBundle.read(List.of(dir), p -> false));
        List<String> ranked = d.hypotheses().stream().map(Hypothesis::id).toList();
        assertThat(ranked).as("ranking for fixture " + dir + " (scores: " + d.hypotheses().stream().limit(3)
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
