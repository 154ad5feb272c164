package dev.crashlab.unpack;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Describes one file of a bundle after unpacking: where it sits in the bundle and where its bytes are staged.
 *
 * @param path   the file's normalized path inside the bundle, '/'-separated, never absolute, no {@code ..}
 * @param file   the staged copy on disk, under the unpacker's staging directory, with a generated name
 * @param size   the number of bytes in {@code file}
 * @param sha256 the SHA-256 of the bytes, lowercase hex
 */
public record StagedFile(String path, Path file, long size, String sha256) {

    /** Checks that every component is present and the size is not negative. */
    public StagedFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(sha256, "sha256");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative, was " + size);
        }
    }
}
