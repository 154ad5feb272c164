package dev.crashlab.parse.env;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes each environment parser with arbitrary bytes; it must return a result, never throw.
 *
 * <p>Every build runs it in regression mode over {@code EnvParsersFuzzTestInputs/<method>/}, in a JVM of its
 * own (the pom's {@code fuzz-regression} execution); {@code JAZZER_FUZZ=1} searches for new failing inputs.
 */
class EnvParsersFuzzTest {

    @FuzzTest(maxDuration = "1m")
    void envKeyValue(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new EnvKeyValueParser(), ArtifactType.ENV_KEY_VALUE, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void torchCollectEnv(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new TorchCollectEnvParser(), ArtifactType.TORCH_COLLECT_ENV, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void pipFreeze(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new PipFreezeParser(), ArtifactType.PIP_FREEZE, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void pipList(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new PipListParser(), ArtifactType.PIP_LIST, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void condaList(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new CondaListParser(), ArtifactType.CONDA_LIST, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void tfBuildInfo(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new TfBuildInfoParser(), ArtifactType.TF_BUILD_INFO, bytes);
    }

    @FuzzTest(maxDuration = "1m")
    void nvccVersion(byte[] bytes) throws IOException {
        ParserFuzzing.parseBytes(new NvccVersionParser(), ArtifactType.NVCC_VERSION, bytes);
    }
}
