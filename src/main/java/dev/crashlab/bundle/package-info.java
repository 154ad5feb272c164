/**
 * Bundles: safe unpacking of uploads (BundleUnpacker, the coordinator that sniffs each file's format and dispatches to one reader per archive format: ZipReader, TarReader, GzipReader; EntryNames, UnpackMessages and UnpackStreams hold what they share), the content-addressed blob store, the Bundle and Artifact rows and BundleService, which stores an upload. The unpacker and its readers, blob store and limits are plain Java; the rest are Quarkus beans and entities.
 */
package dev.crashlab.bundle;
