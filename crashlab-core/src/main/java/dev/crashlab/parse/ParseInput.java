package dev.crashlab.parse;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One artifact to parse: its path inside the bundle, its sniffed type, and where its bytes come from.
 *
 * <p>NOTE: the bytes are a stream, not a file: the bundle reader feeds every parser of an artifact from one
 * pass over the stored bytes, so a parser opens its input once and reads it front to back.
 */
public final class ParseInput {

    /** Where an artifact's bytes come from. */
    @FunctionalInterface
    public interface Source {
        /** Opens the bytes from their start. */
        InputStream open() throws IOException;
    }

    private final String path;
    private final ArtifactType type;
    private final long size;
    private final Source source;

    /**
     * An artifact whose bytes come from {@code source}.
     *
     * @param path the artifact's path inside the bundle (what {@link SourceRef#artifact()} names)
     * @param type what the sniffer decided the artifact is
     * @param size the number of bytes, or -1 when unknown
     * @param source the bytes
     */
    public ParseInput(String path, ArtifactType type, long size, Source source) {
        this.path = Objects.requireNonNull(path);
        this.type = Objects.requireNonNull(type);
        this.size = size;
        this.source = Objects.requireNonNull(source);
    }

    /** An artifact whose bytes are the file {@code file} (tests, goldens, the CLI's loose files). */
    public ParseInput(String path, ArtifactType type, Path file) {
        this(path, type, sizeOf(file), () -> Files.newInputStream(file));
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /** The artifact's path inside the bundle. */
    public String path() {
        return path;
    }

    /** What the sniffer decided the artifact is. */
    public ArtifactType type() {
        return type;
    }

    /** The number of bytes, or -1 when unknown. */
    public long size() {
        return size;
    }

    /** Returns the same bytes under another type. */
    public ParseInput withType(ArtifactType other) {
        return new ParseInput(path, other, size, source);
    }

    /** Opens the bytes. */
    public InputStream openBytes() throws IOException {
        return source.open();
    }

    /**
     * Opens the artifact as text, whatever its encoding (UTF-8 with or without BOM, UTF-16LE/BE with or
     * without BOM, else Windows-1252), with malformed bytes replaced rather than fatal.
     */
    public BufferedReader openText() throws IOException {
        return TextDecoding.open(openBytes());
    }

    /** Returns a source reference into this artifact. */
    public SourceRef at(long line, String text) {
        return new SourceRef(path, line, text);
    }

    @Override
    public String toString() {
        return "ParseInput[" + path + ", " + type + ", " + size + " bytes]";
    }
}
