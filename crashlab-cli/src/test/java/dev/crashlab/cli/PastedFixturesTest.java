package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every article's fixture log, pasted as people paste logs ({@code eval --perturb}'s paste rewrites: an issue page, a
 * quoted reply, a console's wrap, Jupyter, UTF-16, localised Windows messages, a chained exception, per-rank repeats, a
 * teardown tail, a code block's indent, an issue's {@code <details>} source, PowerShell's error record, the journal's and a
 * container runtime's prefixes, every line twice, long lines broken after a blank by a page or a mail), still ranks its article first: the reading, not the wording, decides.
 */
class PastedFixturesTest {

    static final List<Perturbation> PASTES = List.of(Perturbation.MARKDOWN, Perturbation.QUOTED, Perturbation.WRAPPED,
            Perturbation.JUPYTER, Perturbation.UTF16, Perturbation.UTF16_BARE, Perturbation.LOCALIZED, Perturbation.CHAINED, Perturbation.RANKS,
            Perturbation.SHUTDOWN_TAIL, Perturbation.INDENTED, Perturbation.DETAILS, Perturbation.POWERSHELL, Perturbation.JOURNAL,
            Perturbation.CRI, Perturbation.DOUBLED, Perturbation.SOFT_WRAPPED);

    static DiagnosisEngine engine;

    @BeforeAll
    static void load() {
        engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
    }

    static Stream<Arguments> pastedFixtures() throws Exception {
        List<Arguments> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(KbFixturesTest.FIXTURES)) {
            for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("console.log"))).sorted().toList()) {
                for (Perturbation p : PASTES) {
                    out.add(Arguments.of(dir.getFileName().toString(), p));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pastedFixtures")
    void aPastedFixtureRanksItsArticleFirst(String id, Perturbation paste) throws Exception {
        Perturbation.Case whole = PerturbedCase.of(KbFixturesTest.FIXTURES.resolve(id));
        // only the log is pasted; the other files (an nvidia-smi dump, an event export) are uploaded as they are
        Perturbation.Case log = whole.with(Map.of("crash.log", whole.files().get("console.log")));
        Perturbation.Case pasted = paste.apply(log);
        if (pasted == null) {
            return; // nothing for this rewrite in this log (no traceback, no localised message, no long line)
        }
        Map<String, String> files = new LinkedHashMap<>(whole.files());
        files.put("console.log", pasted.files().get("crash.log"));
        Diagnosis d = engine.diagnose(PerturbedCase.read(whole.with(files)));
        List<String> ranked = d.hypotheses().stream().map(Hypothesis::id).toList();
        assertThat(ranked).as(id + " pasted as " + paste.written() + " (scores: " + d.hypotheses().stream().limit(3)
                .map(h -> h.id() + "=" + h.score()).toList() + ")").first().isEqualTo(id);
    }
}
