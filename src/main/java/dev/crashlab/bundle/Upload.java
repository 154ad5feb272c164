package dev.crashlab.bundle;

import java.nio.file.Path;

/**
 * One file as the client sent it: its name, its bytes already received on disk, and their SHA-256 if the
 * receiver computed it on the way in (null otherwise: the service then hashes the file itself).
 */
public record Upload(String name, Path file, String sha256) {

    /** An upload whose hash is not known yet. */
    public Upload(String name, Path file) {
        this(name, file, null);
    }
}
