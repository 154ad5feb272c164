/**
 * Stored bundles: the Bundle and Artifact rows, the content-addressed blob store (local disk or S3) and
 * BundleService, which stores an upload that {@code dev.crashlab.unpack} has unpacked, redacts its text files and
 * deletes it again. Quarkus beans and entities; the blob stores themselves are plain Java.
 */
package dev.crashlab.bundle;
