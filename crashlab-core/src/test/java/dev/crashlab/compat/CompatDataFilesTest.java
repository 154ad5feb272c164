package dev.crashlab.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.kb.Versions;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Checks the shipped compat tables ({@code compat/*.csv}): every row parses and cites a source, versions are
 * dotted numbers, ranges are ordered, regexes compile, and keys are unique.
 */
class CompatDataFilesTest {

    private static final Path FOLDER = Path.of("compat");
    private static final Pattern DOTTED = Pattern.compile("\\d+(\\.\\d+)*");
    private static final Pattern ARCH = Pattern.compile("(sm|compute)_\\d{2,3}");
    private static final CompatData DATA = CompatData.load(FOLDER);

    @Test
    void everyTableIsPresentAndLoadsWithoutProblems() {
        assertThat(DATA.problems()).as("problems in %s", FOLDER.toAbsolutePath()).isEmpty();
        assertThat(DATA.tables().keySet()).containsExactlyInAnyOrderElementsOf(CompatData.COLUMNS.keySet());
        CompatData.COLUMNS.forEach((name, columns) -> {
            assertThat(DATA.tables().get(name).header()).as("header of %s", name).containsExactlyElementsOf(columns);
            assertThat(DATA.rows(name)).as("rows of %s", name).isNotEmpty();
        });
    }

    @Test
    void everyRowCitesAUrlOrADocumentSection() {
        DATA.tables().forEach((name, table) -> table.rows().forEach(r ->
                assertThat(r.get("source")).as("%s:%d source", name, r.line()).matches(".*(https?://\\S+|\\S+\\.md\\b|section|Table).*")));
    }

    @Test
    void tensorflowRowsAreVersionsWithOrderedPythonRangesAndOneRowPerMinorAndPlatform() {
        Set<String> keys = new HashSet<>();
        for (Row r : DATA.rows(CompatData.TENSORFLOW_BUILDS)) {
            String at = CompatData.TENSORFLOW_BUILDS + ":" + r.line();
            assertDotted(at, r, "tensorflow", "python_min", "python_max", "cuda", "cudnn");
            assertThat(r.get("platform")).as(at).isIn("linux", "windows");
            assertOrdered(at, r.get("python_min"), r.get("python_max"));
            assertThat(keys.add(Versions.majorMinor(r.get("tensorflow")) + "/" + r.get("platform"))).as("%s duplicate", at).isTrue();
        }
    }

    @Test
    void noNativeWindowsGpuBuildAfterTensorflow210() {
        for (Row r : DATA.rows(CompatData.TENSORFLOW_BUILDS)) {
            if (r.get("platform").equals("windows")) {
                assertThat(Versions.compare(r.get("tensorflow"), "2.10")).as("windows row at line %d", r.line()).isLessThanOrEqualTo(0);
            }
        }
    }

    @Test
    void pytorchRowsNameACudaVariantOrCpuAndValidArchitectures() {
        Set<String> keys = new HashSet<>();
        for (Row r : DATA.rows(CompatData.PYTORCH_WHEELS)) {
            String at = CompatData.PYTORCH_WHEELS + ":" + r.line();
            assertDotted(at, r, "torch", "python_min", "python_max");
            assertThat(r.get("cuda")).as(at).matches("cpu|\\d+\\.\\d+");
            assertOrdered(at, r.get("python_min"), r.get("python_max"));
            if (r.get("cuda").equals("cpu")) {
                assertThat(r.get("arch_list")).as("%s: a CPU wheel has no GPU architectures", at).isEmpty();
            }
            for (String a : r.get("arch_list").isEmpty() ? new String[0] : r.get("arch_list").split(" ")) {
                assertThat(a).as("%s arch", at).matches(ARCH);
            }
            assertThat(keys.add(r.get("torch") + "/" + r.get("cuda"))).as("%s duplicate", at).isTrue();
        }
    }

    @Test
    void driverRowsAreToolkitOrMinorWithDottedDriverVersions() {
        Set<String> keys = new HashSet<>();
        for (Row r : DATA.rows(CompatData.CUDA_DRIVER_MIN)) {
            String at = CompatData.CUDA_DRIVER_MIN + ":" + r.line();
            assertDotted(at, r, "cuda", "linux_min");
            if (!r.get("windows_min").isEmpty()) {
                assertDotted(at, r, "windows_min");
            }
            assertThat(r.get("kind")).as(at).isIn("toolkit", "minor");
            assertThat(keys.add(r.get("cuda") + "/" + r.get("kind"))).as("%s duplicate", at).isTrue();
        }
    }

    @Test
    void toolkitDriversNeverDecreaseWithTheCudaVersion() {
        List<Row> toolkit = DATA.rows(CompatData.CUDA_DRIVER_MIN).stream().filter(r -> r.get("kind").equals("toolkit"))
                .sorted((a, b) -> Versions.compare(a.get("cuda"), b.get("cuda"))).toList();
        for (int i = 1; i < toolkit.size(); i++) {
            assertThat(Versions.compare(toolkit.get(i - 1).get("linux_min"), toolkit.get(i).get("linux_min")))
                    .as("CUDA %s vs %s", toolkit.get(i - 1).get("cuda"), toolkit.get(i).get("cuda")).isLessThanOrEqualTo(0);
        }
    }

    @Test
    void cudnnRowsHaveOrderedCudaRangesInsideTheirMajor() {
        for (Row r : DATA.rows(CompatData.CUDNN_CUDA)) {
            String at = CompatData.CUDNN_CUDA + ":" + r.line();
            assertDotted(at, r, "cudnn", "cuda_major", "cuda_min", "cuda_max");
            assertOrdered(at, r.get("cuda_min"), r.get("cuda_max"));
            assertThat(Versions.parse(r.get("cuda_min"))[0]).as(at).isEqualTo(Integer.parseInt(r.get("cuda_major")));
            assertThat(Versions.parse(r.get("cuda_max"))[0]).as(at).isEqualTo(Integer.parseInt(r.get("cuda_major")));
        }
    }

    @Test
    void libraryMajorRowsNameAMathLibraryWithAnOrderedCudaRange() {
        for (Row r : DATA.rows(CompatData.CUDA_LIBRARY_MAJORS)) {
            String at = CompatData.CUDA_LIBRARY_MAJORS + ":" + r.line();
            assertThat(r.get("library")).as(at).matches("cufft|curand|cusolver");
            assertThat(r.get("major")).as(at).matches("\\d{1,2}");
            assertDotted(at, r, "cuda_min", "cuda_max");
            assertOrdered(at, r.get("cuda_min"), r.get("cuda_max"));
        }
    }

    @Test
    void gpuPatternsCompileAndNameDottedCapabilities() {
        for (Row r : DATA.rows(CompatData.GPU_COMPUTE_CAPABILITY)) {
            String at = CompatData.GPU_COMPUTE_CAPABILITY + ":" + r.line();
            Pattern.compile(r.get("pattern"), Pattern.CASE_INSENSITIVE);
            assertThat(r.get("compute_capability")).as(at).matches("\\d{1,2}\\.\\d");
        }
    }

    // names as nvidia-smi and framework logs print them; the capability from NVIDIA's table
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "NVIDIA GeForce RTX 3080|8.6", "NVIDIA GeForce RTX 3060 Laptop GPU|8.6", "NVIDIA RTX A6000|8.6", "NVIDIA A10G|8.6",
        "NVIDIA A100-SXM4-80GB|8.0", "NVIDIA A30|8.0", "NVIDIA H100 80GB HBM3|9.0", "NVIDIA GeForce RTX 4090|8.9",
        "NVIDIA RTX 4000 Ada Generation|8.9", "NVIDIA L4|8.9", "Quadro RTX 4000|7.5", "TITAN RTX|7.5", "Tesla T4|7.5",
        "NVIDIA GeForce GTX 1660 Ti|7.5", "NVIDIA GeForce RTX 2070 SUPER|7.5", "NVIDIA T1000|7.5", "Tesla V100-SXM2-16GB|7.0",
        "TITAN V|7.0", "Tesla P100-PCIE-16GB|6.0", "NVIDIA TITAN X (Pascal)|6.1", "TITAN Xp|6.1", "GeForce GTX 1080 Ti|6.1",
        "Tesla P40|6.1", "Quadro P4000|6.1", "GeForce GTX TITAN X|5.2", "GeForce GTX 970|5.2", "GeForce GTX 750 Ti|5.0",
        "Tesla K80|3.7", "Tesla K40c|3.5", "GeForce GTX 680|3.0", "NVIDIA GeForce RTX 5090|12.0", "NVIDIA B200|10.0"})
    void knownGpuNamesResolveToTheirComputeCapability(String name, String capability) {
        GpuDevice gpu = new GpuDevice(null, name, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, List.of(), Map.of(), List.of());
        assertThat(CompatLookup.computeCapability(DATA, gpu)).as(name).isEqualTo(capability);
    }

    @ParameterizedTest
    @CsvSource({"2.10,windows,11.2,8.1", "2.4,linux,11.0,8.0", "2.3,windows,10.1,7.6", "1.15,linux,10.0,7.4", "2.15,linux,12.2,8.9"})
    void tensorflowLookupsReturnTheTestedBuild(String tf, String platform, String cuda, String cudnn) {
        Row r = CompatLookup.tensorflowBuild(DATA, tf, platform);
        assertThat(r).as("TF %s on %s", tf, platform).isNotNull();
        assertThat(r.get("cuda")).isEqualTo(cuda);
        assertThat(r.get("cudnn")).isEqualTo(cudnn);
    }

    private static void assertDotted(String at, Row r, String... columns) {
        for (String c : columns) {
            assertThat(r.get(c)).as("%s %s", at, c).matches(DOTTED);
        }
    }

    private static void assertOrdered(String at, String low, String high) {
        assertThat(Versions.compare(low, high)).as("%s: %s <= %s", at, low, high).isLessThanOrEqualTo(0);
    }
}
