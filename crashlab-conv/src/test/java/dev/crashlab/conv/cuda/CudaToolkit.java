package dev.crashlab.conv.cuda;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Finds and runs the CUDA toolkit's command-line tools (nvcc, ptxas) for tests that use them where present. */
final class CudaToolkit {

    /** The targets every committed PTX module must compile for. */
    static final List<String> TARGETS = List.of("sm_75", "sm_80", "sm_86", "sm_89", "sm_90");

    private CudaToolkit() {
    }

    /** The tool on the PATH, if any. */
    static Optional<Path> find(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Runs a command with a time limit; returns its exit status and its output (stdout and stderr). */
    static Run run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile("cuda-tool", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                return new Run(-1, "timed out after " + timeoutSeconds + " s: " + command);
            }
            return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    record Run(int exit, String output) {}
}
