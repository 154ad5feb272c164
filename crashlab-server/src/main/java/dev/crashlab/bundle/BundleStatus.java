package dev.crashlab.bundle;

/** Where a bundle stands in the pipeline. */
public enum BundleStatus {
    /** Its files are stored; reading them and the diagnosis run in the background (resumed after a restart). */
    PROCESSING,
    /** Read and diagnosed; its facts are stored. */
    READY,
    /**
     * Reading it failed ({@code Bundle.readError} says why, in words); its files are kept and it can be read
     * again. A reading stored before (by an older reader version) stays shown until then.
     */
    FAILED
}
