package dev.crashlab.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.kb.KbLoader;
import dev.crashlab.kb.KnowledgeBase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** KB search: codes and file names find their articles, snippets mark the words, typos are forgiven. */
class KbIndexTest {

    static final KnowledgeBase KB = new KbLoader(CompatChecks.ids()).load(Path.of("crashlab-core/src/test/resources/kb-test/valid")).kb();
    final KbIndex index = KbIndex.build(KB);

    @Test
    void findsAnArticleByAFileNameWithMarkedSnippet() {
        List<KbHit> hits = index.search("zlibwapi", 5);
        assertThat(hits.getFirst().id()).isEqualTo("zlib-missing");
        assertThat(hits.getFirst().snippets()).anyMatch(s -> s.contains("<mark>zlibwapi</mark>.dll"));
    }

    @Test
    void findsAnNtstatusGivenAsDecimal() {
        assertThat(index.search("exit code -1073740791", 5)).extracting(KbHit::id).first().isEqualTo("zlib-missing");
        assertThat(index.search("0xC0000409", 5)).extracting(KbHit::id).first().isEqualTo("zlib-missing");
    }

    @Test
    void forgivesTypos() {
        List<KbHit> hits = index.search("zlibwpai", 5);
        assertThat(hits).extracting(KbHit::id).contains("zlib-missing");
        assertThat(index.search("insufficent drivr", 5)).extracting(KbHit::id).first().isEqualTo("old-driver");
    }

    @Test
    void snippetsAreEscapedHtml() {
        assertThat(Snippets.escape("<b>&\"")).isEqualTo("&lt;b&gt;&amp;&quot;");
        assertThat(index.search("nothing-matches-this-query-xyz", 5)).isEmpty();
    }

    @Test
    void similarityIsRelativeToTheBestArticle() {
        var sim = index.similarity(List.of("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"));
        assertThat(sim.get("gpu-memory")).isEqualTo(1.0);
        assertThat(sim.values()).allMatch(v -> v >= 0 && v <= 1);
    }
}
