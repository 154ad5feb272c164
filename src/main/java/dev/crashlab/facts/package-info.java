/**
 * Reading a bundle once: {@link dev.crashlab.facts.BundleReader} makes one pass over each artifact's bytes
 * (sniff, every parser for the type, the diagnosis's text window) into a typed
 * {@link dev.crashlab.facts.BundleFacts}, within a {@link dev.crashlab.facts.ReadBudget}; and
 * {@link dev.crashlab.facts.FactsJson}, the one form in which that result is stored and read back.
 *
 * <p>Plain Java, no Quarkus: the CLI reads bundles with it too. The server stores the result at ingest
 * ({@code facts/store}) and everything downstream (diagnosis, signatures, reproduction drafts, the
 * {@code /facts} API) reads the stored form, never the blobs.
 */
package dev.crashlab.facts;
