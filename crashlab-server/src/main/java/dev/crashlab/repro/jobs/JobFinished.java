package dev.crashlab.repro.jobs;

/**
 * A reproduction job of a bundle reached a final state and its result is stored; fired synchronously inside the
 * completing transaction. The diagnosis observes it (a replay is evidence) without the job queue knowing it.
 */
public record JobFinished(long jobId, long bundleId) {}
