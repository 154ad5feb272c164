/**
 * Ingest in the background (Quarkus beans): after an upload is stored, {@link dev.crashlab.ingest.BundleIngest}
 * reads it once ({@code facts.BundleReader}), stores the reading ({@code facts.store}) and the diagnosis, and marks
 * the bundle ready; at start-up it resumes bundles left unfinished and re-reads those of an older reader version.
 */
package dev.crashlab.ingest;
