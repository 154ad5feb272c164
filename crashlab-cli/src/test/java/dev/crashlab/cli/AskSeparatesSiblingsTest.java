package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.AskForArtifact;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.fact.Fact;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "To be sure" asks for a file that can tell a thin log's equals apart. The KB's sibling groups are the thin logs
 * of ours a careful reader cannot decide ({@code kb-shapes/} with {@code verdict weak}); for each, the file asked
 * for is taken, of that file's kind, from each equal's own bundles ({@code kb-fixtures/<id>/},
 * {@code kb-fixtures-versus/<id>/*}, {@code kb-shapes/<id>/*}) and added to the thin log: at least one must move the
 * scores in its own cause's favour against every other equal. An ask for a file that speaks to none of them (an
 * environment listing where the card's memory decides) fails. NOTE: a thin log whose ask no bundle of ours holds for
 * any of its equals is not checked (the count of those is bounded below, and the test prints them).
 */
class AskSeparatesSiblingsTest {

    static final Path RESOURCES = Path.of("crashlab-core/src/test/resources");
    /** How far the added file must move its cause's score against each other equal's. */
    static final double MOVED_BY = 0.05;
    static DiagnosisEngine engine;

    @BeforeAll
    static void load() {
        engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
    }

    static Stream<String> thinShapes() throws Exception {
        return KbShapesTest.shapes().filter(s -> {
            try {
                return Files.readAllLines(KbShapesTest.SHAPES.resolve(s).resolve("shape.txt")).contains("verdict weak");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void theFileAskedForCanTellTheEqualsApart() throws Exception {
        List<String> failures = new ArrayList<>();
        List<String> unchecked = new ArrayList<>();
        List<String> shapes = thinShapes().toList();
        for (String shape : shapes) {
            String problem = check(shape);
            if (problem == null) {
                continue;
            }
            (problem.startsWith("unchecked: ") ? unchecked : failures).add(shape + ": " + problem);
        }
        System.out.println("asks no bundle of ours can check (" + unchecked.size() + " of " + shapes.size() + "): " + unchecked);
        assertThat(failures).as("thin logs whose ask does not tell the equals apart").isEmpty();
        assertThat(unchecked.size()).as("thin logs whose ask no bundle of ours holds: " + unchecked).isLessThanOrEqualTo(shapes.size() / 2);
    }

    /** Returns null when the ask of {@code shape} is shown to separate its equals, else why not. */
    static String check(String shape) throws Exception {
        Path dir = KbShapesTest.SHAPES.resolve(shape);
        List<Path> thinFiles = files(dir);
        Diagnosis thin = engine.diagnose(OfflineBundle.read(thinFiles, p -> false));
        if (thin.equals().size() < 2) {
            return "a weak answer shows two or more equals; got " + thin.equals();
        }
        if (thin.ask().isEmpty()) {
            return "unchecked: asks for nothing between " + thin.equals();
        }
        String asked = thin.ask().getFirst().artifact();
        Set<String> thinNames = thinFiles.stream().map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        List<String> tried = new ArrayList<>();
        boolean separated = false;
        for (String id : thin.equals()) {
            for (Path f : ownFiles(id)) {
                if (thinNames.contains(f.getFileName().toString()) || families(f).stream().noneMatch(asked::contains)) {
                    continue;
                }
                List<Path> more = new ArrayList<>(thinFiles);
                more.add(f);
                Diagnosis d = engine.diagnose(OfflineBundle.read(more, p -> false));
                boolean moved = movesToward(thin, d, id);
                tried.add(RESOURCES.relativize(f) + (moved ? " separates " : " does not separate ") + scores(d, thin.equals()));
                separated |= moved;
            }
        }
        if (tried.isEmpty()) {
            return "unchecked: no bundle of ours holds " + asked + " for any of " + thin.equals();
        }
        return separated ? null : "asked for " + asked + " between " + thin.equals() + " " + scores(thin, thin.equals()) + "; with it: " + tried;
    }

    /** Tells whether {@code after} moves the score of {@code id} up against each other equal of {@code before}. */
    static boolean movesToward(Diagnosis before, Diagnosis after, String id) {
        Map<String, Double> b = scoreMap(before);
        Map<String, Double> a = scoreMap(after);
        for (String other : before.equals()) {
            if (other.equals(id)) {
                continue;
            }
            double was = b.getOrDefault(id, 0.0) - b.getOrDefault(other, 0.0);
            double now = a.getOrDefault(id, 0.0) - a.getOrDefault(other, 0.0);
            if (now < was + MOVED_BY) {
                return false;
            }
        }
        return true;
    }

    static Map<String, Double> scoreMap(Diagnosis d) {
        return d.hypotheses().stream().collect(Collectors.toMap(Hypothesis::id, Hypothesis::score, (x, y) -> x));
    }

    static String scores(Diagnosis d, List<String> ids) {
        Map<String, Double> m = scoreMap(d);
        return ids.stream().map(id -> id + "=" + Math.round(m.getOrDefault(id, 0.0) * 100) / 100.0).toList().toString();
    }

    /** The artifact families a file gives facts of, as "To be sure" names them. */
    static Set<String> families(Path f) throws Exception {
        Set<String> out = new TreeSet<>();
        for (Fact fact : OfflineBundle.read(List.of(f), p -> false).facts()) {
            out.add(AskForArtifact.artifactFor(fact.kind()));
        }
        return out;
    }

    /** The files of every bundle of ours written for {@code id}. */
    static List<Path> ownFiles(String id) throws Exception {
        List<Path> out = new ArrayList<>();
        for (Path root : List.of(RESOURCES.resolve("kb-fixtures").resolve(id), RESOURCES.resolve("kb-fixtures-versus").resolve(id),
                KbShapesTest.SHAPES.resolve(id))) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("shape.txt")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    static List<Path> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("shape.txt")).sorted().toList();
        }
    }
}
