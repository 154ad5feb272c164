package dev.crashlab.parse;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One artifact to parse: its path inside the bundle, its sniffed type, and its bytes on disk.
 *
 * @param path the artifact's path inside the bundle (what {@link SourceRef#artifact()} names)
 * @param type what the sniffer decided the artifact is
 * @param file the bytes
 */
public record ParseInput(String path, ArtifactType type, Path file) {

    /** Opens the bytes. */
    public InputStream openBytes() throws IOException {
        return Files.newInputStream(file);
    }

    /**
     * Opens the artifact as text, whatever its encoding (UTF-8 with or without BOM, UTF-16LE/BE with or
     * without BOM, else Windows-1252), with malformed bytes replaced rather than fatal.
     */
    public BufferedReader openText() throws IOException {
        return TextDecoding.open(file);
    }

    /** Returns a source reference into this artifact. */
    public SourceRef at(long line, String text) {
        return new SourceRef(path, line, text);
    }
}
