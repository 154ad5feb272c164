package dev.crashlab.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Analysing only the passages that may hold a query word picks the same snippets as analysing every passage. */
class SnippetsTest {

    private final LogAnalyzer analyzer = new LogAnalyzer();

    private void assertSame(String text, Set<String> terms) {
        List<String> all = Snippets.best(Snippets.passages(analyzer, text), terms, 2);
        List<String> some = Snippets.best(Snippets.passages(analyzer, text, terms), terms, 2);
        assertThat(some).as("terms %s", terms).isEqualTo(all);
    }

    @Test
    void compoundsNumbersAndCaseFoldingPickTheSameSnippets() {
        String text = "Could not load cudart64_110.dll\n\nİSTANBUL ΣΊΣΥΦΟΣ error 0x00007ff6a1b2 at 12:30\n\n- OSError: libcudnn.so.8"
                + " cannot open shared object\n\nplain words only here";
        for (String t : List.of("cudart", "cudart64_110.dll", "dll", "istanbul", "i̇stanbul", "σίσυφος", "σίσυφοσ", "error", "libcudnn", "so",
                "shared", "only", "absent")) {
            assertSame(text, Set.of(t));
        }
        assertThat(Snippets.best(Snippets.passages(analyzer, text, Set.of("cudart")), Set.of("cudart"), 2)).hasSize(1);
    }

    @Test
    void everyWordOfTheKnowledgeBaseArticlesPicksTheSameSnippets() throws Exception {
        Path dir = Path.of("kb-articles");
        if (!Files.isDirectory(dir)) {
            dir = Path.of("../kb-articles");
        }
        List<Path> articles;
        try (Stream<Path> s = Files.list(dir)) {
            articles = s.filter(p -> p.toString().endsWith(".md")).sorted().limit(8).toList();
        }
        assertThat(articles).isNotEmpty();
        int checked = 0;
        for (Path a : articles) {
            String text = Files.readString(a);
            List<String> words = new ArrayList<>(new LinkedHashSet<>(Snippets.passages(analyzer, text).stream()
                    .flatMap(p -> p.tokens().stream()).map(Snippets.Token::term).filter(t -> !t.startsWith("<")).toList()));
            for (int i = 0; i < words.size(); i += 9) {
                assertSame(text, Set.of(words.get(i)));
                assertSame(text, new LinkedHashSet<>(List.of(words.get(i), words.get((i * 7 + 3) % words.size()))));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(50);
    }
}
