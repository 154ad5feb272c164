package dev.crashlab.parse;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Runs one parser over arbitrary bytes for a fuzz target: any exception it throws fails the target. */
public final class ParserFuzzing {

    private ParserFuzzing() {}

    /** Writes {@code data} to a temp file and parses it as one artifact of {@code type}. */
    public static void parseBytes(ArtifactParser parser, ArtifactType type, byte[] data) throws IOException {
        Path file = Files.createTempFile("crashlab-fuzz-" + parser.name(), ".bin");
        try {
            Files.write(file, data);
            assertNotNull(parser.parse(new ParseInput("fuzz-input", type, file)));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
