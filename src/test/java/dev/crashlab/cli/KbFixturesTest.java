package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KbArticle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the shipped knowledge base against its fixture bundles: every article loads, has a fixture bundle of
 * our own in {@code src/test/resources/kb-fixtures/<id>/}, and that bundle, read and diagnosed exactly as
 * {@code crashlab diagnose} does, ranks the article first.
 */
class KbFixturesTest {

    private static final Path KB = Path.of("kb-articles");
    private static final Path COMPAT = Path.of("compat");
    private static final Path FIXTURES = Path.of("src/test/resources/kb-fixtures");

    private static KnowledgeSource source;

    @BeforeAll
    static void load() {
        source = KnowledgeSource.load(KB, COMPAT);
    }

    @Test
    void theKnowledgeBaseAndCompatTablesLoadWithoutProblems() {
        assertThat(source.problems()).isEmpty();
        assertThat(source.kb().articles()).hasSizeGreaterThanOrEqualTo(23);
    }

    @Test
    void everyArticleHasAFixtureBundleAndEveryFixtureAnArticle() throws IOException {
        Set<String> articles = source.kb().articles().stream().map(KbArticle::id).collect(Collectors.toCollection(TreeSet::new));
        Set<String> fixtures;
        try (Stream<Path> dirs = Files.list(FIXTURES)) {
            fixtures = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(fixtures).as("fixture folders").containsExactlyInAnyOrderElementsOf(articles);
        for (String id : fixtures) {
            try (Stream<Path> files = Files.list(FIXTURES.resolve(id))) {
                assertThat(files.filter(Files::isRegularFile).count()).as("files in the %s fixture", id).isPositive();
            }
        }
    }

    @Test
    void everyFixtureRanksItsArticleFirst() throws Exception {
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        List<String> wrong = new ArrayList<>();
        for (KbArticle article : source.kb().articles()) {
            Path bundle = FIXTURES.resolve(article.id());
            if (!Files.isDirectory(bundle)) {
                continue; // reported by everyArticleHasAFixtureBundleAndEveryFixtureAnArticle
            }
            Diagnosis d = engine.diagnose(OfflineBundle.read(List.of(bundle), name -> false));
            List<Hypothesis> ranked = d.hypotheses();
            if (ranked.isEmpty() || !ranked.getFirst().id().equals(article.id())) {
                wrong.add(article.id() + " ranked " + ranked.stream().limit(3)
                        .map(h -> h.id() + String.format(java.util.Locale.ROOT, " %.2f", h.confidence())).toList());
            }
        }
        assertThat(wrong).as("fixtures whose article is not ranked first").isEmpty();
    }
}
