package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the kernels' arithmetic without a GPU: {@code src/test/cuda/kernel_host_emulation.cpp} compiles the
 * CUDA sources for the CPU (each block's threads as OS threads) and compares random problems in every pass
 * and storage type with direct loops. Needs g++ and the CUDA headers (for the half types).
 */
class KernelHostEmulationTest {

    @Test
    void theKernelsComputeConvolutionsWhenRunOnTheHost(@TempDir Path dir) throws IOException, InterruptedException {
        Optional<Path> compiler = CudaToolkit.find("g++");
        Optional<Path> include = cudaInclude();
        assumeTrue(compiler.isPresent(), "g++ is not on the PATH");
        assumeTrue(include.isPresent(), "no CUDA headers (cuda_fp16.h) found");
        Path binary = dir.resolve("kernel_host_emulation");
        CudaToolkit.Run build = CudaToolkit.run(List.of(compiler.get().toString(), "-std=c++20", "-O1", "-pthread",
                "-I" + include.get(), "-Icrashlab-conv/src/main/cuda", "crashlab-conv/src/test/cuda/kernel_host_emulation.cpp", "-o", binary.toString()), 600);
        assertThat(build.exit()).as("g++: %s", build.output()).isZero();

        long seed = Integer.toUnsignedLong(new Random().nextInt());
        CudaToolkit.Run run = CudaToolkit.run(List.of(binary.toString(), Long.toString(seed), "40"), 600);
        System.out.println("KernelHostEmulationTest seed " + seed + ": " + lastLine(run.output()));
        assertThat(run.exit()).as("seed %d:\n%s", seed, run.output()).isZero();
        assertThat(run.output()).contains("0 failures in 40 cases");
    }

    private static String lastLine(String s) {
        String[] lines = s.strip().split("\n");
        return lines[lines.length - 1];
    }

    /** The toolkit's include folder: CUDA_HOME's, nvcc's sibling, or the usual place. */
    static Optional<Path> cudaInclude() throws IOException {
        List<Path> candidates = new ArrayList<>();
        String home = System.getenv("CUDA_HOME");
        if (home != null) {
            candidates.add(Path.of(home, "include"));
        }
        Optional<Path> nvcc = CudaToolkit.find("nvcc");
        if (nvcc.isPresent()) {
            Path real = nvcc.get().toRealPath();
            candidates.add(real.getParent().resolveSibling("include"));
        }
        candidates.add(Path.of("/usr/local/cuda/include"));
        return candidates.stream().filter(p -> Files.isRegularFile(p.resolve("cuda_fp16.h"))).findFirst();
    }
}
