package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Compiles every committed PTX module for every target GPU without a GPU: in the JVM with JCuda's PTX
 * compiler (CUDA 12.0's, so it also proves the modules need no newer ISA than 8.0), and with {@code ptxas}
 * where a toolkit is installed.
 */
class PtxCompileTest {

    static Stream<Arguments> modulesAndTargets() {
        List<Arguments> all = new ArrayList<>();
        for (String module : PtxModules.NAMES) {
            for (String target : CudaToolkit.TARGETS) {
                all.add(Arguments.of(module, target));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} for {1} in the JVM")
    @MethodSource("modulesAndTargets")
    void compilesInTheJvm(String module, String target) {
        byte[] ptx = PtxModules.text(module);
        nvPTXCompilerHandle compiler = new nvPTXCompilerHandle();
        int rc = JNvPTXCompiler.nvPTXCompilerCreate(compiler, ptx.length, ptx);
        assertThat(rc).as("nvPTXCompilerCreate").isZero();
        try {
            rc = JNvPTXCompiler.nvPTXCompilerCompile(compiler, 1, new String[] {"--gpu-name=" + target});
            assertThat(rc).as("%s.ptx for %s: %s", module, target, errorLog(compiler)).isZero();
            long[] size = new long[1];
            assertThat(JNvPTXCompiler.nvPTXCompilerGetCompiledProgramSize(compiler, size)).isZero();
            assertThat(size[0]).as("compiled size").isGreaterThan(1000);
        } finally {
            JNvPTXCompiler.nvPTXCompilerDestroy(compiler);
        }
    }

    private static String errorLog(nvPTXCompilerHandle compiler) {
        long[] size = new long[1];
        JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(compiler, size);
        if (size[0] <= 1) {
            return "(no log)";
        }
        byte[] log = new byte[(int) size[0]];
        JNvPTXCompiler.nvPTXCompilerGetErrorLog(compiler, log);
        return new String(log, 0, log.length - 1, java.nio.charset.StandardCharsets.UTF_8).trim();
    }

    @ParameterizedTest(name = "{0} for {1} with ptxas")
    @MethodSource("modulesAndTargets")
    void assemblesWithPtxas(String module, String target, @TempDir Path dir) throws IOException, InterruptedException {
        Path ptxas = CudaToolkit.find("ptxas").orElse(null);
        assumeTrue(ptxas != null, "ptxas is not on the PATH (no CUDA toolkit)");
        Path source = dir.resolve(module + ".ptx");
        Files.write(source, PtxModules.text(module));
        CudaToolkit.Run run = CudaToolkit.run(List.of(ptxas.toString(), "-arch=" + target, source.toString(), "-o",
                dir.resolve(module + ".cubin").toString()), 300);
        assertThat(run.exit()).as("ptxas %s.ptx for %s: %s", module, target, run.output()).isZero();
        assertThat(Files.size(dir.resolve(module + ".cubin"))).isGreaterThan(1000);
    }
}
