package dev.crashlab.parse.nvidiasmi;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes each nvidia-smi and kernel-log parser with arbitrary bytes: it must return facts or problems, and
 * never throw.
 *
 * <p>Every build runs it in regression mode over {@code NvidiaSmiParsersFuzzTestInputs/<method>/} in a JVM
 * of its own (the pom's {@code fuzz-regression} execution). Fuzz for real with
 * {@code JAZZER_FUZZ=1 scripts/mvn test -Dtest=NvidiaSmiParsersFuzzTest}.
 */
class NvidiaSmiParsersFuzzTest {

    private static Path temp;

    @BeforeAll
    static void createTemp() throws IOException {
        temp = Files.createTempDirectory("crashlab-nvidiasmi-fuzz-");
    }

    @AfterAll
    static void deleteTemp() throws IOException {
        try (Stream<Path> paths = Files.walk(temp)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @FuzzTest(maxDuration = "2m")
    void table(byte[] data) throws IOException {
        parse(new NvidiaSmiTableParser(), ArtifactType.NVIDIA_SMI_TABLE, data);
    }

    @FuzzTest(maxDuration = "2m")
    void queryText(byte[] data) throws IOException {
        parse(new NvidiaSmiQueryTextParser(), ArtifactType.NVIDIA_SMI_QUERY_TEXT, data);
    }

    @FuzzTest(maxDuration = "2m")
    void xml(byte[] data) throws IOException {
        parse(new NvidiaSmiXmlParser(), ArtifactType.NVIDIA_SMI_XML, data);
    }

    @FuzzTest(maxDuration = "2m")
    void csv(byte[] data) throws IOException {
        parse(new NvidiaSmiCsvParser(), ArtifactType.NVIDIA_SMI_CSV, data);
    }

    @FuzzTest(maxDuration = "2m")
    void kernelLog(byte[] data) throws IOException {
        parse(new KernelLogParser(), ArtifactType.KERNEL_LOG, data);
    }

    /** Parses {@code data} as one artifact; any exception fails the fuzz target. */
    private static void parse(ArtifactParser parser, ArtifactType type, byte[] data) throws IOException {
        Path file = temp.resolve(parser.name());
        Files.write(file, data);
        ParseResult r = parser.parse(new ParseInput(parser.name(), type, file));
        assertNotNull(r);
    }
}
