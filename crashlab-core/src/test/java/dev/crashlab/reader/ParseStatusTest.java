package dev.crashlab.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.reader.ParseStatus;
import dev.crashlab.sniff.ArtifactType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the reader says of an artifact's parse, from real parses of small files of ours. */
class ParseStatusTest {

    @TempDir
    Path dir;

    ParseStatus of(ArtifactType type, byte[] bytes) throws Exception {
        Path f = Files.write(dir.resolve("f-" + type), bytes);
        return new BundleReader(ReadBudget.defaults())
                .read(List.of(new BundleReader.Item("f", type, bytes.length, () -> Files.newInputStream(f))))
                .artifacts().getFirst().status();
    }

    @Test
    void cleanPartialFailedAndUnsupported() throws Exception {
        assertThat(of(ArtifactType.CONSOLE_LOG, "Process finished with exit code -1073740791 (0xC0000409)\n".getBytes()))
                .isEqualTo(ParseStatus.PARSED);
        byte[] mixed = ("Process finished with exit code -1073740791 (0xC0000409)\n" + "x".repeat(20_000) + "\n").getBytes();
        assertThat(of(ArtifactType.CONSOLE_LOG, mixed)).as("an over-long line is a problem; the exit code is still read")
                .isEqualTo(ParseStatus.PARTIAL);
        assertThat(of(ArtifactType.KERAS_MODEL_JSON, "{\"class_name\": ".getBytes())).as("truncated JSON gives nothing")
                .isEqualTo(ParseStatus.FAILED);
        assertThat(of(ArtifactType.BINARY, new byte[] {0, 1, 2})).isEqualTo(ParseStatus.UNSUPPORTED);
    }
}
