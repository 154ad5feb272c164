package dev.crashlab.parse.nvidiasmi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes each nvidia-smi and kernel-log parser with arbitrary bytes: it must return facts or problems, and
 * never throw.
 *
 * <p>Every build runs it in regression mode over {@code NvidiaSmiParsersFuzzTestInputs/<method>/} in a JVM
 * of its own (the pom's {@code fuzz-regression} execution). Fuzz for real with
 * {@code JAZZER_FUZZ=1 scripts/mvn test -Dtest=NvidiaSmiParsersFuzzTest}.
 */
class NvidiaSmiParsersFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void table(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new NvidiaSmiTableParser(), ArtifactType.NVIDIA_SMI_TABLE, data);
    }

    @FuzzTest(maxDuration = "2m")
    void queryText(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new NvidiaSmiQueryTextParser(), ArtifactType.NVIDIA_SMI_QUERY_TEXT, data);
    }

    @FuzzTest(maxDuration = "2m")
    void xml(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new NvidiaSmiXmlParser(), ArtifactType.NVIDIA_SMI_XML, data);
    }

    @FuzzTest(maxDuration = "2m")
    void csv(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new NvidiaSmiCsvParser(), ArtifactType.NVIDIA_SMI_CSV, data);
    }

    @FuzzTest(maxDuration = "2m")
    void kernelLog(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new KernelLogParser(), ArtifactType.KERNEL_LOG, data);
    }
}
