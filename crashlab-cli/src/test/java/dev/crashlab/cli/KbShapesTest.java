package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Ask;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shapes one runtime cause takes across frameworks, launchers and operating systems, each a minimal bundle of
 * ours in {@code src/test/resources/kb-shapes/<id>/<shape>/} with a {@code shape.txt} that says what a careful
 * reader concludes from it and names the public source of the message: {@code first <id>} (ranked first),
 * {@code verdict diagnosed|weak|no-evidence}, {@code equals <id>,<id>} (a weak answer shows these among its
 * equals: the log cannot tell them apart) and {@code ask <words>} (the "To be sure" names this).
 */
class KbShapesTest {

    static final Path SHAPES = Path.of("crashlab-core/src/test/resources/kb-shapes");
    static DiagnosisEngine engine;

    @BeforeAll
    static void load() {
        engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
    }

    static Stream<String> shapes() throws Exception {
        try (Stream<Path> dirs = Files.walk(SHAPES, 2)) {
            return dirs.filter(p -> p.getNameCount() == SHAPES.getNameCount() + 2 && Files.isDirectory(p))
                    .map(p -> SHAPES.relativize(p).toString().replace('\\', '/')).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void shapeIsReadAsACarefulReaderWould(String shape) throws Exception {
        Path dir = SHAPES.resolve(shape);
        List<String> spec = Files.readAllLines(dir.resolve("shape.txt"));
        Diagnosis d = engine.diagnose(OfflineBundle.read(List.of(dir), p -> p.endsWith("shape.txt")));
        List<String> ranked = d.hypotheses().stream().map(Hypothesis::id).toList();
        String seen = d.verdict().written() + " " + d.equals() + " " + d.hypotheses().stream().limit(3)
                .map(h -> h.id() + "=" + Math.round(h.score() * 100) / 100.0).toList() + " ask " + d.ask().stream().map(Ask::artifact).toList();
        List<String> checked = new ArrayList<>();
        for (String line : spec) {
            String[] kv = line.trim().split("\\s+", 2);
            switch (kv[0]) {
                case "first" -> assertThat(ranked).as(shape + ": " + seen).first().isEqualTo(kv[1]);
                case "verdict" -> assertThat(d.verdict().written()).as(shape + ": " + seen).isEqualTo(kv[1]);
                case "equals" -> assertThat(d.equals()).as(shape + ": " + seen).containsAll(Arrays.asList(kv[1].split(",")));
                case "ask" -> assertThat(d.ask()).as(shape + ": " + seen)
                        .anySatisfy(a -> assertThat(a.artifact() + " " + a.why()).containsIgnoringCase(kv[1]));
                default -> { continue; }
            }
            checked.add(kv[0]);
        }
        assertThat(checked).as(shape + "/shape.txt states what to expect").isNotEmpty();
        assertThat(spec).as(shape + "/shape.txt names the public source of its messages").anyMatch(l -> l.startsWith("source: https://"));
    }

    @Test
    void everyShapeFolderNamesAnArticle() throws Exception {
        List<String> ids = KbFixturesTest.articles().toList();
        try (Stream<Path> dirs = Files.list(SHAPES)) {
            assertThat(dirs.map(p -> p.getFileName().toString()).toList()).isNotEmpty().allMatch(ids::contains);
        }
    }
}
