package dev.crashlab.bundle;

/** Where a bundle stands in the pipeline. */
public enum BundleStatus {
    /** Its files are stored and typed; nothing has parsed them yet. */
    STORED
}
