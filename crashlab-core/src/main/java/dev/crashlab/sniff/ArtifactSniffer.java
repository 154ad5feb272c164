package dev.crashlab.sniff;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Decides what kind of file an uploaded artifact is from its first {@link #HEAD_BYTES} bytes.
 *
 * <p>The decision runs in four steps, each only when the previous one found nothing:
 * <ol>
 *   <li>binary magic ({@code ElfFile} for .evtx) and the text-vs-binary test, after BOM / UTF-16 detection;
 *   <li>{@link Signatures}: formats that announce themselves near the top; the earliest wins, and a
 *       {@link ConsoleMarkers console marker} before it makes the file a console log;
 *   <li>{@link ShapeRules}: headerless formats recognised by the shape of most lines;
 *   <li>{@link NameHints}: what the file name suggests; else {@link ArtifactType#TEXT}.
 * </ol>
 *
 * <p>NOTE: {@link #sniff(String, byte[])} never throws, whatever the bytes; instances are stateless and
 * thread-safe.
 */
public final class ArtifactSniffer {

    /** A question of a GitHub issue form as it is pasted ({@code ### TensorFlow version}), its answer on a later line. */
    private static final java.util.regex.Pattern ISSUE_FORM_QUESTION = java.util.regex.Pattern.compile(
            "^#{2,4} {1,4}(?:TensorFlow version|OS platform and distribution|GPU model and memory|CUDA/cuDNN version|Python version) {0,4}$",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /** How many leading bytes of a file the sniffer looks at. */
    public static final int HEAD_BYTES = 64 * 1024;

    private static final byte[] EVTX_FILE_MAGIC = {'E', 'l', 'f', 'F', 'i', 'l', 'e', 0};
    private static final byte[] EVTX_CHUNK_MAGIC = {'E', 'l', 'f', 'C', 'h', 'n', 'k', 0};
    /** The file header block is 4 KiB; the first chunk follows it. */
    private static final int EVTX_FIRST_CHUNK = 4096;

    /** Returns the type of the artifact at {@code path} (its path inside the bundle) whose head is {@code head}. */
    public ArtifactType sniff(String path, byte[] head) {
        try {
            return classify(path, head);
        } catch (RuntimeException | StackOverflowError e) {
            // A bug in one rule must not fail an upload; an unrecognised file is still stored and shown.
            return ArtifactType.TEXT;
        }
    }

    /** Reads the head of {@code file} and returns its type; {@code path} is the artifact's path inside the bundle. */
    public ArtifactType sniff(String path, Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(HEAD_BYTES);
        }
        return sniff(path, head);
    }

    /**
     * Returns the type without the safety net of {@link #sniff(String, byte[])}.
     *
     * <p>NOTE: for tests and fuzzing, so that a rule that throws is seen instead of hidden.
     */
    static ArtifactType classify(String path, byte[] head) {
        return decide(NameHints.fileName(path), head == null ? new byte[0] : head);
    }

    private static ArtifactType decide(String fileName, byte[] head) {
        int len = Math.min(head.length, HEAD_BYTES);
        if (isEvtx(head, len)) {
            return ArtifactType.EVTX;
        }
        HeadDecoder.Decoded decoded = HeadDecoder.decode(head, len);
        if (!decoded.isText()) {
            return ArtifactType.BINARY;
        }
        SniffText text = new SniffText(decoded.text(), fileName);
        if (text.firstNonBlank() < 0) {
            return ArtifactType.TEXT;
        }
        ArtifactType bySignature = bySignature(text);
        if (bySignature != null) {
            return bySignature;
        }
        for (ShapeRules.ShapeRule rule : ShapeRules.ALL) {
            if (rule.test().test(text)) {
                return rule.type();
            }
        }
        ArtifactType byName = NameHints.fallback(fileName);
        return byName != null ? byName : ArtifactType.TEXT;
    }

    /**
     * Returns the type of the earliest signature, or {@link ArtifactType#CONSOLE_LOG} when console output
     * starts before it (or anywhere, when the name says console log), or null when neither is present.
     */
    private static ArtifactType bySignature(SniffText text) {
        Signature best = null;
        int bestLine = Integer.MAX_VALUE;
        for (Signature s : Signatures.ALL) {
            int at = s.locate(text);
            if (at >= 0 && at < bestLine) {
                best = s;
                bestLine = at;
            }
        }
        int console = ConsoleMarkers.firstLine(text);
        if (best == null) {
            return console >= 0 ? ArtifactType.CONSOLE_LOG : null;
        }
        if (console >= 0 && (console < bestLine || NameHints.saysConsole(text.fileName()))) {
            return ArtifactType.CONSOLE_LOG;
        }
        // a GitHub issue form (TensorFlow's template) pasted into a file named as a console log is the report with its
        // log inside: an `nvcc -V` or nvidia-smi answer below a question is one part of it, not the file's format
        if (NameHints.saysConsole(text.fileName())) {
            int form = text.firstInWindow(l -> l.startsWith("##") && ISSUE_FORM_QUESTION.matcher(l.strip()).matches());
            if (form >= 0 && form < bestLine) {
                return ArtifactType.CONSOLE_LOG;
            }
        }
        return best.type();
    }

    /** Tells an .evtx file by its header magic, or, when the header is damaged, by the first chunk's magic. */
    static boolean isEvtx(byte[] head, int len) {
        return startsWith(head, len, 0, EVTX_FILE_MAGIC)
                || startsWith(head, len, 0, EVTX_CHUNK_MAGIC)
                || startsWith(head, len, EVTX_FIRST_CHUNK, EVTX_CHUNK_MAGIC);
    }

    private static boolean startsWith(byte[] b, int len, int offset, byte[] magic) {
        if (offset + magic.length > len) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if (b[offset + i] != magic[i]) {
                return false;
            }
        }
        return true;
    }
}
