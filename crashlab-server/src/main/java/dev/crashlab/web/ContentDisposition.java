package dev.crashlab.web;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads and writes the file name in a Content-Disposition header (RFC 6266, with RFC 8187 for non-ASCII). */
final class ContentDisposition {

    private static final Pattern EXTENDED = Pattern.compile("filename\\*\\s*=\\s*([^']*)'[^']*'([^;\\s]+)", Pattern.CASE_INSENSITIVE);
    private static final Pattern QUOTED = Pattern.compile("filename\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\"", Pattern.CASE_INSENSITIVE);
    private static final Pattern TOKEN = Pattern.compile("filename\\s*=\\s*([^;\\s\"]+)", Pattern.CASE_INSENSITIVE);

    private ContentDisposition() {}

    /** Returns the file name a request's Content-Disposition header names, if any. */
    static Optional<String> fileName(String header) {
        if (header == null || header.length() > 4096) {
            return Optional.empty();
        }
        Matcher m = EXTENDED.matcher(header);
        if (m.find()) {
            try {
                return Optional.of(URLDecoder.decode(m.group(2).replace("+", "%2B"), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException badEscape) {
                // fall back to the plain parameter
            }
        }
        m = QUOTED.matcher(header);
        if (m.find()) {
            return Optional.of(m.group(1).replaceAll("\\\\(.)", "$1"));
        }
        m = TOKEN.matcher(header);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** Builds a response header value that names {@code fileName} safely for every browser. */
    static String header(String disposition, String fileName) {
        String ascii = fileName.replaceAll("[^\\x20-\\x7e]", "_").replace("\\", "_").replace("\"", "_");
        String encoded = URLEncoder.encode(fileName, StandardCharsets.UTF_8).replace("+", "%20");
        return disposition + "; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
    }
}
