package dev.crashlab.parse.console;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzes the console-log parser with arbitrary bytes: it must return a result, never throw.
 *
 * <p>Every build runs it in regression mode over its Inputs folder, in a JVM of its own (the pom's
 * {@code fuzz-regression} execution); {@code JAZZER_FUZZ=1} fuzzes for real.
 */
class ConsoleLogParserFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void parse(byte[] data) throws IOException {
        Path file = Files.createTempFile("crashlab-console-fuzz", ".log");
        try {
            Files.write(file, data);
            assertNotNull(new ConsoleLogParser().parse(new ParseInput("fuzz.log", ArtifactType.CONSOLE_LOG, file)));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
