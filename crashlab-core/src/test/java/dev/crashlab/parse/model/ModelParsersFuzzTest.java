package dev.crashlab.parse.model;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes each model parser with arbitrary bytes; it must return a result, never throw.
 *
 * <p>Every build runs it in regression mode over {@code ModelParsersFuzzTestInputs/<method>/}, in a JVM of
 * its own (the pom's {@code fuzz-regression} execution); {@code JAZZER_FUZZ=1} searches for new failing inputs.
 */
class ModelParsersFuzzTest {

    @FuzzTest(maxDuration = "1m")
    void kerasModelJson(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new KerasModelJsonParser(), ArtifactType.KERAS_MODEL_JSON, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void modelText(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new ModelTextParser(), ArtifactType.KERAS_MODEL_SUMMARY, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void pytorchCudnnRepro(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new PytorchCudnnReproParser(), ArtifactType.CONSOLE_LOG, bytes);
    }
}
