package dev.crashlab.bundle;

/** Where a bundle stands in the pipeline. */
public enum BundleStatus {
    /** Its files are stored; reading them and the diagnosis run in the background (resumed after a restart). */
    PROCESSING,
    /** Read and diagnosed; its facts are stored. */
    READY,
    /** Reading or diagnosing it failed (the server log says why); it is read again at the next start. */
    FAILED
}
