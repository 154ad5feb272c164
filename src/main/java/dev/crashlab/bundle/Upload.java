package dev.crashlab.bundle;

import java.nio.file.Path;

/** One file as the client sent it: its name, and its bytes already received on disk. */
public record Upload(String name, Path file) {}
