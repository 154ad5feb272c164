/**
 * Reproduction jobs as Quarkus beans and entities: the queue (ReproJobService with conditional state updates), registered workers, the lease sweep, the local worker and drafts of specs from a bundle. Fires JobFinished when a job of a bundle ends.
 */
package dev.crashlab.repro.jobs;
