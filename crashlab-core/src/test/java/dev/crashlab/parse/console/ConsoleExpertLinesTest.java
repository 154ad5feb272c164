package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.StatusCode;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Lines an expert reads at once (issue 11): each alone in a log must become its fact, and look-alikes must not. */
class ConsoleExpertLinesTest {

    @TempDir
    Path tmp;

    private List<Fact> facts(String line) throws IOException {
        Path f = tmp.resolve("x.log");
        Files.writeString(f, "noise before\n" + line + "\nnoise after\n", StandardCharsets.UTF_8);
        return new ConsoleLogParser().parse(new ParseInput("x.log", ArtifactType.CONSOLE_LOG, f)).facts();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "Killed|SIGKILL",
        "./run.sh: line 3:  4242 Killed                  python train.py|SIGKILL",
        "Abort trap: 6|SIGABRT",
        "Segmentation fault: 11|SIGSEGV",
        "Illegal instruction: 4|SIGILL",
        "Abandon (core dumped)|SIGABRT",
        "Abandon|SIGABRT",
        "Erreur de segmentation (core dumped)|SIGSEGV",
        "Speicherzugriffsfehler (Speicherabzug geschrieben)|SIGSEGV",
        "Abgebrochen (Speicherabzug geschrieben)|SIGABRT",
        "Violación de segmento (`core' generado)|SIGSEGV",
        "Ошибка сегментирования (стек памяти сброшен на диск)|SIGSEGV",
        "zsh: illegal hardware instruction  python train.py|SIGILL",
        "zsh: segmentation fault  python -c 'import torch'|SIGSEGV",
        "[1]    4242 killed     python train.py|SIGKILL",
        "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)|SIGKILL",
    })
    void shellReportsBecomeExitStatuses(String line, String signal) throws IOException {
        assertThat(facts(line)).filteredOn(ExitStatus.class::isInstance).map(f -> ((ExitStatus) f).name())
                .as(line).contains(signal);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "The abandon rate was high",
        "We killed the old job and restarted",
        "zsh: command not found: nvidia-smi",
        "Abort trap is a macOS message",
    })
    void proseIsNoExitStatus(String line) throws IOException {
        assertThat(facts(line)).noneMatch(ExitStatus.class::isInstance);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "CUDA error = 999 at /src/kernels.cu:42|cudaErrorUnknown",
        "CUDA Error 2: out of memory|cudaErrorMemoryAllocation",
        "cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510|cudaErrorMemoryAllocation",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=66 error=2 : out of memory|cudaErrorMemoryAllocation",
        "CUDA error code 700 in conv.cu|cudaErrorIllegalAddress",
        "CUDA error: 702|cudaErrorLaunchTimeout",
        "CUDA error 30 at foo.cu:1|CUDA error 30",
        "RuntimeError: CUDA error: the launch timed out and was terminated|cudaErrorLaunchTimeout",
        "cudaErrorLaunchTimeout: the launch timed out and was terminated|cudaErrorLaunchTimeout",
    })
    void numberedAndNamedCudaErrorsBecomeStatusCodes(String line, String name) throws IOException {
        assertThat(facts(line)).filteredOn(StatusCode.class::isInstance).map(f -> ((StatusCode) f).name())
                .as(line).contains(name);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "compute capability: 7.5||7.5|",
        "GPU 0: NVIDIA GeForce RTX 3060 Laptop GPU (UUID: GPU-1234)|NVIDIA GeForce RTX 3060 Laptop GPU||",
        "Device 0: Tesla T4, compute capability 7.5|Tesla T4|7.5|",
        "GPU memory: 7940MiB / 8112MiB||| 7940/8112",
        "NVIDIA GeForce GTX 1080 Ti 10240MiB / 11264MiB|NVIDIA GeForce GTX 1080 Ti|| 10240/11264",
    })
    void gpuNamesCapabilitiesAndMemoryUseInALog(String line, String name, String cc, String memory) throws IOException {
        GpuDevice g = (GpuDevice) facts(line).stream().filter(GpuDevice.class::isInstance).findFirst().orElseThrow();
        assertThat(g.name()).isEqualTo(name == null || name.isBlank() ? null : name);
        assertThat(g.computeCapability()).isEqualTo(cc == null || cc.isBlank() ? null : cc);
        if (memory != null && !memory.isBlank()) {
            String[] m = memory.strip().split("/");
            assertThat(g.memoryUsedMiB()).isEqualTo(Long.parseLong(m[0]));
            assertThat(g.memoryTotalMiB()).isEqualTo(Long.parseLong(m[1]));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "memory: 7940 MB",
        "Loss 0.5 after 10 steps; used 3 GiB",
        "We bought an NVIDIA card",
    })
    void otherTextIsNoGpu(String line) throws IOException {
        assertThat(facts(line)).noneMatch(GpuDevice.class::isInstance);
    }

    @org.junit.jupiter.api.Test
    void aPastedNvidiaSmiRowPairIsOneDeviceCitingBothLines() throws IOException {
        List<Fact> f = facts("|   0  NVIDIA GeForce RTX 2070    Off  | 00000000:01:00.0  On |                  N/A |\n"
                + "| 30%   45C    P2    60W / 215W |   7940MiB /  8192MiB |    100%      Default |");
        List<GpuDevice> gpus = f.stream().filter(GpuDevice.class::isInstance).map(GpuDevice.class::cast).toList();
        assertThat(gpus).singleElement().satisfies(g -> {
            assertThat(g.index()).isZero();
            assertThat(g.name()).isEqualTo("NVIDIA GeForce RTX 2070");
            assertThat(g.memoryUsedMiB()).isEqualTo(7940L);
            assertThat(g.memoryTotalMiB()).isEqualTo(8192L);
            assertThat(g.sources()).hasSize(2);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link|wsl2",
        "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH|wsl2",
        "Linux DESKTOP-1 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux|wsl2",
        "C:\\Users\\me\\venv\\Scripts\\python.exe C:/Users/me/train.py|windows",
        "/usr/lib/wslu/wslview: not found|",
        "/home/me/usr/lib/wsl_tools/run.sh|",
        "python.exe is not recognised|",
    })
    void linesThatProveTheOsArePlatforms(String line, String family) throws IOException {
        List<String> families = facts(line).stream().filter(f -> f instanceof dev.crashlab.fact.Platform p && p.osFamily() != null)
                .map(f -> ((dev.crashlab.fact.Platform) f).osFamily()).toList();
        if (family == null) {
            assertThat(families).as(line).isEmpty();
        } else {
            assertThat(families).as(line).containsExactly(family);
        }
    }
}
