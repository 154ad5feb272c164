/**
 * Reading a bundle once: {@link dev.crashlab.reader.BundleReader} makes one pass over each artifact's bytes
 * (sniff, every parser for the type, the diagnosis's text window) into a typed
 * {@link dev.crashlab.reader.BundleFacts}, within a {@link dev.crashlab.reader.ReadBudget}; and
 * {@link dev.crashlab.reader.FactsJson}, the one form in which that result is stored and read back.
 *
 * <p>Plain Java, no Quarkus: the CLI reads bundles with it too. The server stores the result at ingest
 * ({@code dev.crashlab.reader.service}) and everything downstream (diagnosis, signatures, reproduction drafts, the
 * {@code /facts} API) reads the stored form, never the blobs.
 */
package dev.crashlab.reader;
