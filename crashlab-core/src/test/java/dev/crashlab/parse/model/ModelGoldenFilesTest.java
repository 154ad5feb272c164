package dev.crashlab.parse.model;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.sniff.ArtifactType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Compares every model parser's output on its fixtures (synthetic models, and hostile ones: deep nesting, a
 * huge array, a giant line, binary garbage, UTF-16LE with and without BOM, CP1252, cut-off JSON) with the
 * reviewed golden files.
 *
 * <p>Regenerate after a deliberate change with {@code -Dcrashlab.golden.update=true}, then review the diff.
 */
class ModelGoldenFilesTest {

    /** Each parser with the artifact type its fixtures are read as. */
    static final Map<ArtifactParser, ArtifactType> PARSERS = Map.of(
            new KerasModelJsonParser(), ArtifactType.KERAS_MODEL_JSON,
            new ModelTextParser(), ArtifactType.KERAS_MODEL_SUMMARY,
            new PytorchCudnnReproParser(), ArtifactType.CONSOLE_LOG);

    /** Fixtures that are deliberately not what their parser reads (binary garbage, JSON that is no Keras model). */
    private static final java.util.Set<String> NOT_ROUTED = java.util.Set.of("hostile-garbage.bin", "not-a-model.json");

    @Test
    void everyFixtureIsSniffedAsATypeItsParserReads() throws java.io.IOException {
        for (ArtifactParser parser : PARSERS.keySet()) {
            for (Path f : GoldenFiles.fixtures(parser.name())) {
                if (NOT_ROUTED.contains(f.getFileName().toString())) {
                    continue;
                }
                ArtifactType type = new dev.crashlab.sniff.ArtifactSniffer().sniff(f.getFileName().toString(), f);
                org.assertj.core.api.Assertions.assertThat(dev.crashlab.parse.Parsers.forType(type))
                        .as("%s is sniffed as %s", f, type)
                        .anyMatch(p -> p.getClass() == parser.getClass());
            }
        }
    }

    @TestFactory
    Stream<DynamicContainer> everyFixtureMatchesItsGoldenFile() {
        return PARSERS.entrySet().stream()
                .sorted(Map.Entry.comparingByValue())
                .map(e -> {
                    List<Path> fixtures = GoldenFiles.fixtures(e.getKey().name());
                    assertFalse(fixtures.isEmpty(), "fixtures of " + e.getKey().name());
                    return DynamicContainer.dynamicContainer(e.getKey().name(), fixtures.stream()
                            .map(f -> DynamicTest.dynamicTest(f.getFileName().toString(),
                                    () -> GoldenFiles.check(e.getKey(), e.getValue(), f))));
                });
    }
}
