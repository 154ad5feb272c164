package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fails when the committed PTX no longer matches {@code src/main/cuda} (someone edited a kernel and forgot scripts/build-ptx). */
class PtxStalenessTest {

    @Test
    void theCommittedPtxIsWhatScriptsBuildPtxMakesOfTheSources(@TempDir Path out) throws IOException, InterruptedException {
        assumeTrue(CudaToolkit.find("nvcc").isPresent() && CudaToolkit.find("ptxas").isPresent(),
                "nvcc/ptxas are not on the PATH (no CUDA toolkit): cannot regenerate the PTX");
        CudaToolkit.Run run = CudaToolkit.run(List.of("bash", "scripts/build-ptx", "--out", out.toString()), 600);
        assertThat(run.exit()).as("scripts/build-ptx: %s", run.output()).isZero();
        for (String module : PtxModules.NAMES) {
            String fresh = Files.readString(out.resolve(module + ".ptx"), StandardCharsets.UTF_8);
            String committed = new String(PtxModules.text(module), StandardCharsets.UTF_8);
            assertThat(committed).as("crashlab-conv/src/main/resources/cuda/%s.ptx is stale: run scripts/build-ptx and commit", module)
                    .isEqualTo(fresh);
        }
        try (var built = Files.list(out)) {
            assertThat(built.count()).as("a module per source, no more").isEqualTo(PtxModules.NAMES.size());
        }
    }
}
