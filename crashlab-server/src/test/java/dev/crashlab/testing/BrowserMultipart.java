package dev.crashlab.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Builds a multipart/form-data body the way browsers do: file names as raw UTF-8 in the part header.
 *
 * <p>NOTE: REST Assured's multipart writer turns non-ASCII file names into '?', which no browser does.
 */
public final class BrowserMultipart {

    /** The boundary used by {@link #fileBody}. */
    public static final String BOUNDARY = "----CrashLabTestBoundary7MA4YWxkTrZu0gW";

    /** The Content-Type header value for bodies built here. */
    public static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    private BrowserMultipart() {}

    /** Returns a body with one file part named {@code file}. */
    public static byte[] fileBody(String fileName, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String head = "--" + BOUNDARY + "\r\n"
                + "Content-Disposition: form-data; name=\"file\"; filename=\"" + fileName.replace("\"", "%22") + "\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n";
        out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(content);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }
}
