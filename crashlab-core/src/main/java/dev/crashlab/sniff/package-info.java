/**
 * Decides what kind of file each uploaded artifact is, from its content, so the right parser reads it.
 *
 * <p>Entry point: {@link dev.crashlab.sniff.ArtifactSniffer#sniff(String, java.nio.file.Path)} returns an
 * {@link dev.crashlab.sniff.ArtifactType}. It reads at most
 * {@link dev.crashlab.sniff.ArtifactSniffer#HEAD_BYTES} bytes and never throws on bad input.
 *
 * <h2>How a decision is made</h2>
 * <ol>
 *   <li><b>Bytes.</b> {@code ElfFile\0} (or a chunk's {@code ElfChnk\0} where the header is damaged)
 *       means EVTX. A BOM or the NUL pattern of BOM-less UTF-16 picks the encoding (Windows exports are
 *       often UTF-16); then NUL bytes and control characters decide text versus BINARY.</li>
 *   <li><b>Signatures</b> ({@code Signatures}): lines that announce a format near the top, such as
 *       {@code Collecting environment information...} or {@code | NVIDIA-SMI 535.54.03 ...}. Pasted files
 *       often hold several formats, so the signature that starts earliest wins. Console-output markers
 *       ({@code ConsoleMarkers}: tracebacks, TensorFlow log lines, "Killed", cuDNN statuses) compete
 *       with it: console output that starts first makes the file a CONSOLE_LOG, and so does console
 *       output anywhere in a file whose name says it is a console log ({@code crash.log}).</li>
 *   <li><b>Shapes</b> ({@code ShapeRules}): headerless listings recognised by most of their lines
 *       ({@code numpy   1.26.4}, {@code cuda: 11.8}).</li>
 *   <li><b>Name</b> ({@code NameHints}): {@code *.log}, {@code dmesg.txt}, {@code requirements.txt}; else TEXT.</li>
 * </ol>
 *
 * <p>Every rule carries an example line, and a test checks that each example is recognised. All
 * line checks are plain string scans or anchored, bounded patterns over lines cut at a fixed length,
 * so hostile input cannot make the sniffer slow.
 *
 * <p>This package is plain Java: no Quarkus or CDI, so the CLI and the reproduction child use it too.
 */
package dev.crashlab.sniff;
