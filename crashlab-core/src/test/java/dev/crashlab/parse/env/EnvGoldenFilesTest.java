package dev.crashlab.parse.env;

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
import org.junit.jupiter.api.TestFactory;

/**
 * Compares every environment parser's output on its fixtures (including the hostile ones: a 1 MB line,
 * binary garbage, UTF-16LE with and without BOM, CP1252) with the reviewed golden files.
 *
 * <p>Regenerate after a deliberate change with {@code -Dcrashlab.golden.update=true}, then review the diff.
 */
class EnvGoldenFilesTest {

    /** Each parser with the artifact type its fixtures are read as. */
    static final Map<ArtifactParser, ArtifactType> PARSERS = Map.of(
            new CondaListParser(), ArtifactType.CONDA_LIST,
            new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE,
            new NvccVersionParser(), ArtifactType.NVCC_VERSION,
            new PipFreezeParser(), ArtifactType.PIP_FREEZE,
            new PipListParser(), ArtifactType.PIP_LIST,
            new TfBuildInfoParser(), ArtifactType.TF_BUILD_INFO,
            new TorchCollectEnvParser(), ArtifactType.TORCH_COLLECT_ENV);

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
