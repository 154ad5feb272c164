package dev.crashlab.parse.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pins the mappings the diagnosis relies on, one rule per test, on short inline inputs. */
class EnvParsersTest {

    @TempDir
    Path dir;

    @Test
    void envKeysMapToSharedFactsWhateverTheirSpelling() throws IOException {
        List<Fact> facts = parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE,
                "Graphics Card: RTX 3080 10GB\nNVIDIA Driver = 512.15\ntf: 2.10.0\nPyTorch: 1.13.1+cu117\nos: Windows 10\n");
        assertThat(facts).contains(
                new VersionFact("nvidia-driver", "512.15", "env", List.of()),
                new VersionFact("tensorflow", "2.10.0", "env", List.of()),
                new BuildInfo("torch", "1.13.1", "11.7", null, false, List.of()));
        assertThat(facts).filteredOn(GpuDevice.class::isInstance).map(GpuDevice.class::cast)
                .singleElement().satisfies(g -> {
                    assertThat(g.name()).isEqualTo("RTX 3080");
                    assertThat(g.memoryTotalMiB()).isEqualTo(10240L);
                });
        assertThat(facts).filteredOn(Platform.class::isInstance).map(Platform.class::cast)
                .singleElement().extracting(Platform::osFamily).isEqualTo("windows");
    }

    @Test
    void aRemarkThatNamesWsl2MakesTheFamilyWsl2() throws IOException {
        List<Fact> facts = parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE,
                "os: Ubuntu 22.04 (WSL2, kernel 5.15.133.1-microsoft-standard-WSL2)\n");
        assertThat(facts).filteredOn(Platform.class::isInstance).map(Platform.class::cast).singleElement()
                .satisfies(p -> {
                    assertThat(p.os()).isEqualTo("Ubuntu 22.04");
                    assertThat(p.osFamily()).isEqualTo("wsl2");
                });
        // a remark that is not about the platform leaves the family to the name
        assertThat(parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE, "os: Ubuntu 22.04 (fresh install)\n"))
                .filteredOn(Platform.class::isInstance).map(Platform.class::cast).singleElement()
                .extracting(Platform::osFamily).isEqualTo("linux");
    }

    @Test
    void aSourceBuildStatesItsOwnCudaAndCudnn() throws IOException {
        List<Fact> facts = parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE,
                "tensorflow: 1.4.1 (compiled from source with cuda 9.1 and cudnn 7.1.1)\n");
        assertThat(facts).contains(
                new VersionFact("tensorflow", "1.4.1", "env", List.of()),
                new VersionFact("tensorflow-source-build", "true", "env", List.of()),
                new BuildInfo("tensorflow", "1.4.1", "9.1", "7.1.1", false, List.of()));
        // a source build that names no versions is still a source build, with no BuildInfo to compare against
        List<Fact> bare = parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE, "tensorflow: built from source (_python_build)\n");
        assertThat(bare).contains(new VersionFact("tensorflow-source-build", "true", "env", List.of()))
                .noneMatch(BuildInfo.class::isInstance);
        // a release wheel is no source build
        assertThat(parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE, "tensorflow: 1.4.1 (pip wheel, cuda 8)\n"))
                .noneMatch(f -> f instanceof VersionFact v && v.component().endsWith("-source-build"))
                .noneMatch(BuildInfo.class::isInstance);
    }

    @Test
    void envValuesThatAreNotVersionsAreIgnored() throws IOException {
        assertThat(parse(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE,
                "cuda: not known to the reporter\nide: Thonny\nram: 16GB\ntensorflow: GPU build (version not stated)\n")).isEmpty();
    }

    @Test
    void windowsBuildInfoNumbersAreVersions() {
        assertThat(TfBuildInfoParser.windowsNumber("64_112", true)).isEqualTo("11.2");
        assertThat(TfBuildInfoParser.windowsNumber("64_8", false)).isEqualTo("8");
        assertThat(TfBuildInfoParser.windowsNumber("11.8", true)).isEqualTo("11.8");
    }

    @Test
    void collectEnvPlaceholdersStayUnknown() throws IOException {
        List<Fact> facts = parse(new TorchCollectEnvParser(), ArtifactType.TORCH_COLLECT_ENV,
                "PyTorch version: N/A\nCUDA used to build PyTorch: N/A\nCUDA runtime version: Could not collect\n"
                        + "GPU models and configuration: No CUDA\nNvidia driver version: Could not collect\n");
        assertThat(facts).isEmpty();
    }

    @Test
    void torchWheelTagsGiveTheBuild() throws IOException {
        assertThat(parse(new PipFreezeParser(), ArtifactType.PIP_FREEZE, "torch==2.0.1+cu117\ntorch==2.1.0+cpu\n")).contains(
                new BuildInfo("torch", "2.0.1", "11.7", null, false, List.of()),
                new BuildInfo("torch", "2.1.0", null, null, true, List.of()));
    }

    private List<Fact> parse(ArtifactParser parser, ArtifactType type, String text) throws IOException {
        Path file = dir.resolve("input.txt");
        Files.writeString(file, text);
        // compare without sources: the tests pin what was read, the golden files pin where
        return parser.parse(new ParseInput("input.txt", type, file)).facts().stream()
                .map(f -> f.withSources(List.of())).toList();
    }
}
