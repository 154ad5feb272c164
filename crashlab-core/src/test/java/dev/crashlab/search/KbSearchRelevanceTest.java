package dev.crashlab.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KnowledgeBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KB search by meaning (issue 29, acceptance 4): 30 plain-language queries paraphrased from the articles' symptoms
 * ({@code kb-search/meaning-queries.tsv}) must find their article in the top 3 at least 27 times with the hybrid
 * search, and more often than with words alone (both counts are printed).
 */
class KbSearchRelevanceTest {

    record Query(String expected, String text) {}

    static KnowledgeBase kb;
    static List<Query> queries;

    @BeforeAll
    static void load() throws IOException {
        kb = KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")).kb();
        queries = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("crashlab-core/src/test/resources/kb-search/meaning-queries.tsv"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t", 2);
            queries.add(new Query(parts[0], parts[1]));
        }
    }

    // How many queries find their article among the first three hits; prints the misses.
    static int top3(KbIndex index, String label) {
        int found = 0;
        for (Query q : queries) {
            List<String> ids = index.search(q.text(), 3).stream().map(KbHit::id).toList();
            if (ids.contains(q.expected())) {
                found++;
            } else {
                System.out.printf("%s miss: %s -> %s (wanted %s)%n", label, q.text(), ids, q.expected());
            }
        }
        System.out.printf("%s: %d of %d queries find their article in the top 3%n", label, found, queries.size());
        return found;
    }

    @Test
    void everyQueryNamesAnArticleOfTheKb() {
        assertThat(queries).hasSize(30);
        assertThat(queries).allSatisfy(q -> assertThat(kb.article(q.expected())).as(q.expected()).isPresent());
    }

    @Test
    void hybridSearchFindsTheArticleByMeaningAndBeatsWordsAlone() {
        int words = top3(KbIndex.build(kb), "words only");
        int hybrid = top3(KbIndex.build(kb, MiniLmEmbedder.shared()), "hybrid");
        assertThat(hybrid).isGreaterThanOrEqualTo(27).isGreaterThan(words);
    }

    @Test
    void theExampleOfTheIssueFindsTheTdrArticleFirst() {
        KbIndex index = KbIndex.build(kb, MiniLmEmbedder.shared());
        List<KbHit> hits = index.search("training freezes and the screen goes black", 5);
        assertThat(hits.getFirst().id()).isEqualTo("tdr-timeout");
        assertThat(hits.getFirst().snippets()).isNotEmpty();
    }
}
