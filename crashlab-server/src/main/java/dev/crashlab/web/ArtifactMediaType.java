package dev.crashlab.web;

import java.io.IOException;
import java.io.InputStream;
import dev.crashlab.bundle.BlobStore;

/**
 * Chooses how an artifact is served: its media type, and whether a browser shows it or downloads it.
 *
 * <p>NOTE: every text artifact, XML and JSON included, is served as {@code text/plain}: an uploaded XML
 * file may carry an XHTML {@code <script>} that a browser would run in CrashLab's origin if it rendered it
 * as XML (the response's {@code sandbox} policy is the second fence).
 */
record ArtifactMediaType(String mediaType, boolean inline) {

    /** Returns the media type for an artifact of this type whose bytes are the blob {@code sha256}. */
    static ArtifactMediaType of(String artifactType, BlobStore blobs, String sha256) throws IOException {
        return switch (artifactType) {
            case "EVTX", "BINARY" -> new ArtifactMediaType("application/octet-stream", false);
            default -> new ArtifactMediaType("text/plain; charset=" + charset(blobs, sha256), true);
        };
    }

    // Windows tools (Event Viewer, PowerShell redirection) often write UTF-16 with a byte order mark.
    private static String charset(BlobStore blobs, String sha256) throws IOException {
        byte[] head = new byte[2];
        int n;
        try (InputStream in = blobs.open(sha256)) {
            n = in.readNBytes(head, 0, 2);
        }
        if (n == 2 && (head[0] & 0xff) == 0xff && (head[1] & 0xff) == 0xfe) {
            return "UTF-16LE";
        }
        if (n == 2 && (head[0] & 0xff) == 0xfe && (head[1] & 0xff) == 0xff) {
            return "UTF-16BE";
        }
        return "UTF-8";
    }
}
