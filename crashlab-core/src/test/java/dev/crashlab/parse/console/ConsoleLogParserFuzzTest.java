package dev.crashlab.parse.console;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes the console-log parser with arbitrary bytes: it must return a result, never throw.
 *
 * <p>Every build runs it in regression mode over its Inputs folder, in a JVM of its own (the pom's
 * {@code fuzz-regression} execution); {@code JAZZER_FUZZ=1} fuzzes for real.
 */
class ConsoleLogParserFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void parse(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new ConsoleLogParser(), ArtifactType.CONSOLE_LOG, data);
    }
}
