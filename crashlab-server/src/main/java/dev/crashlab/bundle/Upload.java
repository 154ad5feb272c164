package dev.crashlab.bundle;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One file as the client sent it: its name, its bytes already received on disk, and their SHA-256, which
 * the receiver computes on the way in so that nothing reads the file twice for it.
 */
public record Upload(String name, Path file, String sha256) {

    public Upload {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(sha256, "sha256");
    }
}
