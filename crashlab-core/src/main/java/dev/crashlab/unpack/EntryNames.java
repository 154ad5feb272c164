package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Checks the names of uploaded files and archive entries: what a bundle path may hold, and how it is normalized. */
final class EntryNames {

    /** The longest path in a bundle, in characters. */
    static final int MAX_PATH_CHARS = 1024;
    private static final int MAX_SEGMENT_BYTES = 255;

    private EntryNames() {}

    /**
     * Returns an entry's normalized path ('/'-separated, no empty or "." segments), or "" for a directory entry
     * that names the root; refuses absolute paths, ".." and names that are not accepted.
     */
    static String normalizeEntryPath(String raw, String label, boolean directory) throws BundleRejectedException {
        String path = raw.replace('\\', '/');
        boolean drive = path.length() >= 2 && path.charAt(1) == ':'
                && ((path.charAt(0) | 0x20) >= 'a' && (path.charAt(0) | 0x20) <= 'z');
        if (path.startsWith("/") || drive) {
            throw new BundleRejectedException(Kind.UNSAFE_PATH,
                    "archive entry " + UnpackMessages.quote(raw) + " in " + UnpackMessages.quote(label) + " has an absolute path: refused");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                throw new BundleRejectedException(Kind.UNSAFE_PATH,
                        "archive entry " + UnpackMessages.quote(raw) + " in " + UnpackMessages.quote(label) + " escapes the bundle: refused");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        String problem = null;
        for (String segment : segments) {
            problem = problem != null ? problem : segmentProblem(segment);
        }
        String normalized = String.join("/", segments);
        if (problem == null && normalized.isEmpty() && !directory) {
            problem = "it is empty";
        }
        if (problem == null && normalized.length() > MAX_PATH_CHARS) {
            problem = "its path is longer than " + MAX_PATH_CHARS + " characters";
        }
        if (problem != null) {
            throw new BundleRejectedException(Kind.BAD_NAME, "archive entry " + UnpackMessages.quote(raw) + " in " + UnpackMessages.quote(label)
                    + " has a name CrashLab does not accept: " + problem);
        }
        return normalized;
    }

    /** Returns why one path segment is not accepted, or null if it is. */
    static String segmentProblem(String segment) {
        if (segment.isEmpty()) {
            return "it is empty";
        }
        if (segment.equals(".") || segment.equals("..")) {
            return "`" + segment + "` is not a file name";
        }
        String problem = characterProblem(segment);
        if (problem != null) {
            return problem;
        }
        if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
            return "a name in it is longer than " + MAX_SEGMENT_BYTES + " bytes";
        }
        return null;
    }

    static String characterProblem(String text) {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) {
                return String.format(Locale.ROOT, "it contains the control character U+%04X", cp);
            }
            if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
                return String.format(Locale.ROOT,
                        "it contains the bidirectional control character U+%04X, which can disguise a file's real name", cp);
            }
            if (Character.isSurrogate((char) cp) && Character.charCount(cp) == 1) {
                return "it is not valid Unicode (an unpaired surrogate)";
            }
            i += Character.charCount(cp);
        }
        return null;
    }
}
