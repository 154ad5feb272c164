/**
 * Safe unpacking of an upload: BundleUnpacker sniffs each file's format and dispatches to one reader per archive
 * format (ZipReader, TarReader, GzipReader; EntryNames, UnpackMessages and UnpackStreams hold what they share) under
 * UnpackLimits, staging each file for the reader. Plain Java, used by the server and the offline commands alike.
 */
package dev.crashlab.unpack;
