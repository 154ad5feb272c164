package dev.crashlab.compat;

import static dev.crashlab.diagnose.TestFacts.build;
import static dev.crashlab.diagnose.TestFacts.dtype;
import static dev.crashlab.diagnose.TestFacts.gpu;
import static dev.crashlab.diagnose.TestFacts.lib;
import static dev.crashlab.diagnose.TestFacts.platform;
import static dev.crashlab.diagnose.TestFacts.version;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatOutcome.Result;
import dev.crashlab.fact.Fact;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every compatibility check, table-driven: the facts of a case, the outcome expected, and words the
 * explanation must contain. Rows named {@code appliesWhen...} expect a mismatch; {@code doesNotApplyWhen...}
 * expect ok or unknown.
 */
class CompatChecksTest {

    static final dev.crashlab.fact.SourceRef REFUSAL = new dev.crashlab.fact.SourceRef("console.log", 3,
            "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7005 but linked against 7104");

    static final CompatData DATA = CompatData.load(Path.of("crashlab-core/src/test/resources/compat-test"));

    static Arguments row(String name, String check, List<Fact> facts, Result expected, String... says) {
        return Arguments.of(name, check, facts, expected, says);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // cuda-vs-framework-build
                row("appliesWhenTfBuildWantsAnotherCuda", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.4.1", "pip list"), version("cuda-runtime", "10.1", "env"), platform("linux", null)),
                        Result.MISMATCH, "TF 2.4 expects CUDA 11.0", "found CUDA 10.1"),
                row("appliesWhenAFailedLoadAsksForAnotherCuda", "cuda-vs-framework-build",
                        List.of(lib("cudart64_80.dll"), version("cuda-runtime", "9.1", "env")), Result.MISMATCH, "CUDA 8.0", "9.1"),
                row("appliesWhenTfRanOnACudaNoTfWasBuiltFor", "cuda-vs-framework-build",
                        List.of(new dev.crashlab.fact.LogLine(dev.crashlab.fact.LogLine.Severity.ERROR, "tensorflow/core/kernels/conv_ops.cc:1106",
                                "boom", List.of(new dev.crashlab.fact.SourceRef("a", 1, "x"))), version("cuda-runtime", "10.2", "env"), platform("linux", null)),
                        Result.MISMATCH, "no TensorFlow release for linux was built for CUDA 10.2"),
                row("doesNotApplyWhenMinorDiffersWithinCuda11", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.10.0", "pip list"), version("cuda-runtime", "11.8", "env"), platform("linux", null)),
                        Result.OK, "TF 2.10 expects CUDA 11.2"),
                row("doesNotApplyWhenNothingIsKnown", "cuda-vs-framework-build", List.of(), Result.UNKNOWN),
                row("appliesWhenAFailedLoadOfCusolver10MeetsCuda112", "cuda-vs-framework-build",
                        List.of(lib("libcusolver.so.10"), version("cuda-runtime", "11.2", "log: library path")),
                        Result.MISMATCH, "10.1 to 11.0", "found CUDA 11.2"),
                row("doesNotApplyWhenTfAsksForTheCurandItsCudaShips", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.10.0", "pip list"), lib("libcurand.so.10"), platform("linux", null)),
                        Result.UNKNOWN, "TF 2.10 expects CUDA 11.2"),
                row("doesNotApplyWhenAFailedCufftLoadIsOfTheInstalledToolkit", "cuda-vs-framework-build",
                        List.of(lib("cufft64_10.dll"), version("cuda-runtime", "11.8", "env")), Result.OK, "11.8"),
                row("appliesWhenTfAsksForTheToolkitsOwnCufftName", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.10.0", "pip list"), lib("libcufft.so.10.0"), platform("linux", null)),
                        Result.MISMATCH, "CUDA 10.0"),
                row("doesNotApplyWhenASourceBuildNamesTheCudaFound", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.4.1", "env"), version("tensorflow-source-build", "true", "env"),
                                build("tensorflow", "2.4.1", "10.1", "7.6", false), version("cuda-runtime", "10.1", "env"), platform("linux", null)),
                        Result.OK, "was built for CUDA 10.1", "found CUDA 10.1"),
                row("doesNotApplyTheStockTableToASourceBuildOfUnknownCuda", "cuda-vs-framework-build",
                        List.of(version("tensorflow", "2.4.1", "env"), version("tensorflow-source-build", "true", "env"),
                                version("cuda-runtime", "10.1", "env"), platform("linux", null)),
                        Result.UNKNOWN, "built from source"),
                // cudnn-vs-framework-build
                row("appliesWhenCudnnMajorDiffers", "cudnn-vs-framework-build",
                        List.of(version("tensorflow", "2.3.0", "pip list"), version("cudnn", "8.0.5", "env"), platform("linux", null)),
                        Result.MISMATCH, "TF 2.3 expects cuDNN 7.6", "found cuDNN 8.0.5"),
                row("appliesWhenRuntimeCudnnIsOlderThanCompiled", "cudnn-vs-framework-build",
                        List.of(version("cudnn", "8.3.2", "log: compiled with"), version("cudnn", "8.0.3", "log: runtime")),
                        Result.MISMATCH, "8.3.2", "8.0.3"),
                // the framework's own refusal names both versions on one line: its rule decides (PyTorch <= 1.2 wanted the same minor)
                row("appliesWhenTheFrameworkRefusedANewerMinorOnOneLine", "cudnn-vs-framework-build",
                        List.of(version("cudnn", "7.0.5", "log: compiled with").withSources(List.of(REFUSAL)),
                                version("cudnn", "7.1.4", "log: runtime").withSources(List.of(REFUSAL))),
                        Result.MISMATCH, "7.0.5", "refused", "7.1.4"),
                row("doesNotApplyWhenANewerMinorWasReadFromTwoPlaces", "cudnn-vs-framework-build",
                        List.of(version("cudnn", "7.0.5", "log: compiled with").withSources(List.of(REFUSAL)),
                                version("cudnn", "7.1.4", "log: runtime").withSources(List.of(new dev.crashlab.fact.SourceRef("a", 9, "other")))),
                        Result.OK),
                row("doesNotApplyWhenNewerMinorOfSameMajor", "cudnn-vs-framework-build",
                        List.of(version("tensorflow", "2.4.0", "pip list"), version("cudnn", "8.1.0", "env"), platform("linux", null)),
                        Result.OK),
                row("doesNotApplyTheStockCudnnToASourceBuild", "cudnn-vs-framework-build",
                        List.of(version("tensorflow", "2.3.0", "env"), version("tensorflow-source-build", "true", "env"),
                                version("cudnn", "8.0.5", "env"), platform("linux", null)),
                        Result.UNKNOWN),
                row("appliesWhenASourceBuildsOwnCudnnDiffers", "cudnn-vs-framework-build",
                        List.of(version("tensorflow", "2.3.0", "env"), version("tensorflow-source-build", "true", "env"),
                                build("tensorflow", "2.3.0", "10.1", "8.1", false), version("cudnn", "7.6.5", "env"), platform("linux", null)),
                        Result.MISMATCH, "cuDNN 8.1", "7.6.5"),
                // driver-vs-cuda
                row("appliesWhenDriverIsBelowTheMinorFloor", "driver-vs-cuda",
                        List.of(version("tensorflow", "2.4.0", "pip list"), version("nvidia-driver", "418.67", "nvidia-smi"), platform("linux", null)),
                        Result.MISMATCH, "driver 418.67 is older than CUDA 11.0 needs (450.80.02 on linux)"),
                row("appliesWhenNvidiaSmiCudaIsBelowTheBuild", "driver-vs-cuda",
                        List.of(build("torch", "2.0.1", "11.7", null, false), gpu("RTX 3080", "470.10", "11.4", 10240L)),
                        Result.MISMATCH, "supports CUDA up to 11.4"),
                row("doesNotApplyWhenDriverIsNewEnough", "driver-vs-cuda",
                        List.of(version("tensorflow", "2.4.0", "pip list"), version("nvidia-driver", "460.32.03", "nvidia-smi"), platform("linux", null)),
                        Result.OK),
                // gpu-arch-vs-build
                row("appliesWhenCudaPredatesTheGpu", "gpu-arch-vs-build",
                        List.of(version("tensorflow", "2.3.0", "pip list"), gpu("NVIDIA GeForce RTX 3080", null, null, null), platform("linux", null)),
                        Result.MISMATCH, "RTX 3080 is sm_86", "CUDA 10.1", "no sm_86 kernels"),
                row("appliesWhenTheWheelLacksTheArch", "gpu-arch-vs-build",
                        List.of(version("torch", "1.7.1", "pip list"), build("torch", "1.7.1", "10.2", null, false), gpu("GeForce RTX 3090", null, null, null)),
                        Result.MISMATCH, "sm_86", "ships kernels for"),
                row("doesNotApplyWhenTheWheelHasTheArch", "gpu-arch-vs-build",
                        List.of(version("torch", "2.0.1", "pip list"), build("torch", "2.0.1", "11.7", null, false), gpu("GeForce RTX 3090", null, null, null)),
                        Result.OK),
                row("doesNotApplyToNonNvidiaGpus", "gpu-arch-vs-build",
                        List.of(version("tensorflow", "2.3.0", "pip list"), gpu("Intel UHD Graphics 605", null, null, null)), Result.UNKNOWN),
                // tf-native-windows-gpu
                row("appliesWhenTf211OnWindowsWithAGpu", "tf-native-windows-gpu",
                        List.of(version("tensorflow", "2.12.0", "pip list"), platform("windows", "3.10"), gpu("NVIDIA GeForce GTX 1080", "531.79", null, null)),
                        Result.MISMATCH, "2.10 was the last"),
                row("doesNotApplyOnWsl2", "tf-native-windows-gpu",
                        List.of(version("tensorflow", "2.12.0", "pip list"), platform("wsl2", "3.10"), gpu("NVIDIA GeForce GTX 1080", "531.79", null, null)),
                        Result.OK),
                row("doesNotApplyToTf210", "tf-native-windows-gpu",
                        List.of(version("tensorflow", "2.10.1", "pip list"), platform("windows", "3.10")), Result.OK),
                // torch-cpu-only-build
                row("appliesWhenCpuWheelMeetsNvidiaGpu", "torch-cpu-only-build",
                        List.of(build("torch", "2.1.0+cpu", null, null, true), gpu("NVIDIA GeForce RTX 3060", "537.13", "12.2", null)),
                        Result.MISMATCH, "CPU-only build", "RTX 3060"),
                row("doesNotApplyToCudaWheels", "torch-cpu-only-build", List.of(build("torch", "2.1.0", "12.1", null, false)), Result.OK),
                row("doesNotApplyWithoutAGpu", "torch-cpu-only-build", List.of(build("torch", "2.1.0+cpu", null, null, true)), Result.UNKNOWN),
                // python-vs-framework
                row("appliesWhenPythonIsTooNew", "python-vs-framework",
                        List.of(version("tensorflow", "2.4.0", "pip list"), platform("linux", "3.9.7")), Result.MISMATCH, "supports Python 3.6–3.8"),
                row("doesNotApplyWithinRange", "python-vs-framework",
                        List.of(version("tensorflow", "2.4.0", "pip list"), platform("linux", "3.8.10")), Result.OK),
                // cudnn-vs-cuda
                row("appliesWhenCudnnIsForAnotherCuda", "cudnn-vs-cuda",
                        List.of(version("cudnn", "7.6.5", "env"), version("cuda-runtime", "11.0", "env")), Result.MISMATCH, "cuDNN 7.6.5", "11.0"),
                row("doesNotApplyWhenCudnnFits", "cudnn-vs-cuda",
                        List.of(version("cudnn", "8.1.0", "env"), version("cuda-runtime", "11.2", "env")), Result.OK),
                // mixed-precision-vs-gpu
                row("appliesWhenFloat16OnPascal", "mixed-precision-vs-gpu",
                        List.of(dtype("mixed_float16"), gpu("GeForce GTX 1080", null, null, null)), Result.MISMATCH, "needs compute capability 7.0"),
                row("appliesWhenBfloat16OnVolta", "mixed-precision-vs-gpu",
                        List.of(dtype("mixed_bfloat16"), gpu("Tesla V100-SXM2-16GB", null, null, null)), Result.MISMATCH, "8.0"),
                row("doesNotApplyOnAmpere", "mixed-precision-vs-gpu",
                        List.of(dtype("mixed_float16"), gpu("GeForce RTX 3080", null, null, null)), Result.OK),
                // multiple-cuda-versions
                row("appliesWhenTwoCudaVersionsAreVisible", "multiple-cuda-versions",
                        List.of(version("cuda-runtime", "11.2", "env"), version("nvcc", "10.1", "nvcc -V")), Result.MISMATCH, "11.2", "10.1"),
                row("appliesWhenAWheelsBundledCudnnMeetsAnotherOnThePath", "multiple-cuda-versions",
                        List.of(build("torch", "1.12", "11.3", null, false), version("cudnn", "8.3.2", "log: compiled with"),
                                version("cudnn", "8.0.3", "log: library path")), Result.MISMATCH, "cuDNN"),
                row("appliesWhenTheBuildsCudnnIsOnTheLibraryPathBesideTheLoadedOne", "multiple-cuda-versions",
                        List.of(version("cudnn", "7.1.1", "log: compiled with"), version("cudnn", "7.0.5", "log: runtime"),
                                version("cudnn", "7.1.1", "env"), version("cudnn", "7.1.1", "log: library path")), Result.MISMATCH, "7.0", "7.1"),
                row("appliesWhenAStatedCudnnIsNeitherTheLoadedNorTheCompiledOne", "multiple-cuda-versions",
                        List.of(version("cudnn", "7.1.1", "log: compiled with"), version("cudnn", "7.0.5", "log: runtime"),
                                version("cudnn", "7.4.2", "env")), Result.MISMATCH, "7.0", "7.4"),
                row("doesNotApplyWhenTheListingStatesTheVersionTheFrameworkWasCompiledWith", "multiple-cuda-versions",
                        List.of(version("cudnn", "7.1.1", "log: compiled with"), version("cudnn", "7.0.5", "log: runtime"),
                                version("cudnn", "7.1.1", "env"), version("cuda-runtime", "9.1", "env")), Result.OK),
                row("doesNotApplyWithOneVersion", "multiple-cuda-versions",
                        List.of(version("cuda-runtime", "11.2.152", "env"), version("nvcc", "11.2", "nvcc -V")), Result.OK));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void check(String name, String checkId, List<Fact> facts, Result expected, String[] says) {
        CompatCheck check = CompatChecks.ALL.stream().filter(c -> c.id().equals(checkId)).findFirst().orElseThrow();
        CompatOutcome o = check.evaluate(SoftwareStack.of(facts), DATA);
        assertThat(o.result()).as(o.explanation()).isEqualTo(expected);
        if (says.length > 0) {
            assertThat(o.explanation()).contains(says);
        }
        if (expected == Result.MISMATCH) {
            assertThat(o.facts()).as("a mismatch names the facts it rests on").isNotEmpty();
        }
    }

    @org.junit.jupiter.api.Test
    void everyCheckHasRowsBothWays() {
        List<String> names = cases().map(a -> (String) a.get()[0] + " " + a.get()[1]).toList();
        for (CompatCheck c : CompatChecks.ALL) {
            assertThat(names).as(c.id()).anyMatch(n -> n.startsWith("appliesWhen") && n.endsWith(" " + c.id()));
            assertThat(names).as(c.id()).anyMatch(n -> n.startsWith("doesNotApply") && n.endsWith(" " + c.id()));
        }
    }

    @org.junit.jupiter.api.Test
    void aThrowingCheckBecomesUnknown() {
        CompatCheck boom = new CompatCheck() {
            @Override
            public String id() {
                return "boom";
            }

            @Override
            public CompatOutcome evaluate(SoftwareStack stack, CompatData data) {
                throw new IllegalStateException("bad row");
            }
        };
        List<CompatOutcome> out = CompatChecks.evaluate(List.of(boom, CompatChecks.ALL.getFirst()), SoftwareStack.of(List.of()), DATA);
        assertThat(out).hasSize(2);
        assertThat(out.getFirst().result()).isEqualTo(Result.UNKNOWN);
        assertThat(out.getFirst().explanation()).contains("the check failed", "bad row");
    }

    @org.junit.jupiter.api.Test
    void windowsDllNamesDecode() {
        assertThat(SoftwareStack.windowsCudaVersion("cudart", "110")).isEqualTo("11.0");
        assertThat(SoftwareStack.windowsCudaVersion("cudart", "101")).isEqualTo("10.1");
        assertThat(SoftwareStack.windowsCudaVersion("cudart", "80")).isEqualTo("8.0");
        assertThat(SoftwareStack.windowsCudaVersion("cudart", "12")).isEqualTo("12");
        // the math libraries carried the toolkit's version up to CUDA 10.0, their own major after it
        assertThat(SoftwareStack.windowsCudaVersion("cufft", "90")).isEqualTo("9.0");
        assertThat(SoftwareStack.windowsCudaVersion("cublas", "92")).isEqualTo("9.2");
        assertThat(SoftwareStack.windowsCudaVersion("cublas", "100")).isEqualTo("10.0");
        assertThat(SoftwareStack.windowsCudaVersion("cusolver", "11")).isEqualTo("11");
        assertThat(SoftwareStack.windowsCudaVersion("cufft", "10")).isEqualTo("10");
    }
}
