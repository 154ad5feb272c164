package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.compat.CompatData;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.kb.KbLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A message a console cut inside a word of prose at its width ("...the index file is cor" + "rupt"), or a page broke
 * after a blank, still meets its {@code text:} matcher; two lines that are not such a cut are never read as one.
 */
class MatchTextCutRowsTest {

    static final String SHARD = MatchAllAndEventsTest.article("shard", "", """
              - id: corrupt-index
                text: '/could not open the dataset shard because its index file is corrupt/i'
                weight: 0.7
                specific: true
                says: "the shard's index is corrupt"
            """);

    final DiagnosisEngine engine;

    MatchTextCutRowsTest() {
        KbLoader.Result r = new KbLoader(CompatChecks.ids()).load(Map.of("shard.md", SHARD), "test", new ArrayList<>());
        assertThat(r.problems()).isEmpty();
        engine = new DiagnosisEngine(r.kb(), CompatData.load(Path.of("crashlab-core/src/test/resources/compat-test")), TextSimilarity.NONE);
    }

    static final String MESSAGE = "[loader] worker 3: could not open the dataset shard because its index file is corrupt (shard-00017.idx)";

    List<Evidence> evidence(String... rows) {
        List<TextLine> lines = new ArrayList<>();
        lines.add(new TextLine("console.log", 1, "$ python train.py --data /mnt/shards"));
        for (int i = 0; i < rows.length; i++) {
            lines.add(new TextLine("console.log", 2 + i, rows[i]));
        }
        Diagnosis d = engine.diagnose(new DiagnosisInput(List.of(), lines));
        return MatchAllAndEventsTest.of(d, "shard").evidence();
    }

    @Test
    void aMessageCutInsideAWordAtAConsolesWidthMeetsItsMatcherCitedAtItsFirstRow() {
        // at 100 columns a time stamp before the message puts the cut at the same place
        for (String line : List.of(MESSAGE, "2024-05-02 10:14:07 " + MESSAGE)) {
            int width = line.length() > 103 ? 100 : 80;
            String first = line.substring(0, width);
            assertThat(first).endsWith(" co");
            List<Evidence> e = evidence(first, line.substring(width), "Aborted");
            assertThat(e).as(width + " columns").singleElement().satisfies(ev -> {
                assertThat(ev.sources()).singleElement().satisfies(s -> {
                    assertThat(s.line()).isEqualTo(2);
                    assertThat(s.text()).isEqualTo(line);
                });
            });
        }
    }

    @Test
    void aMessageBrokenAfterABlankMeetsItsMatcher() {
        int blank = MESSAGE.lastIndexOf(' ', 75);
        assertThat(evidence(MESSAGE.substring(0, blank + 1), MESSAGE.substring(blank + 1))).hasSize(1);
    }

    @Test
    void twoLinesThatAreNoCutAreNeverReadAsOne() {
        // 79 columns: no console's width, and no blank at its end
        assertThat(evidence(MESSAGE.substring(0, 79), MESSAGE.substring(79))).isEmpty();
        // a row of a console's width, but the next line is not the next row (a line between them)
        String at80 = MESSAGE.substring(0, 80);
        assertThat(evidence(at80, "", MESSAGE.substring(80))).isEmpty();
    }

    @Test
    void aLineThatMeetsTheMatcherIsTheOnlyEvidence() {
        String at80 = MESSAGE.substring(0, 80);
        List<Evidence> e = evidence(MESSAGE, at80, MESSAGE.substring(80));
        assertThat(e).singleElement().satisfies(ev -> assertThat(ev.sources()).extracting(SourceRef::line).containsExactly(2L));
    }
}
