package dev.crashlab.parse.env;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads version numbers, placeholders and library names out of the values environment listings print. */
final class VersionText {

    /** What tools print when they know nothing: these are "unknown", never a version. */
    private static final Set<String> UNKNOWN = Set.of("", "n/a", "na", "none", "null", "could not collect", "no cuda",
            "unknown", "not found", "-", "?", "not installed", "not available", "no");
    /** Words people put before the number ({@code CUDA 11.2}, {@code version 3.14.0}). */
    private static final Set<String> LEAD_WORDS = Set.of("cuda", "cudnn", "python", "version", "tensorflow", "tf",
            "torch", "pytorch", "driver", "nvidia", "release", "toolkit", "v", "ver", "=", "==");
    /**
     * A version token: numeric dot parts (an {@code x} wildcard allowed), then an optional pre-release tag,
     * then separated suffixes. NOTE: every repeated group starts with a mandatory character class of its
     * own, so a failing match cannot backtrack exponentially.
     */
    private static final Pattern VERSION = Pattern.compile(
            "\\d{1,9}(?:\\.(?:\\d{1,12}|[xX*]))*(?:[A-Za-z]{1,12}\\d{0,20})?(?:[.\\-+_!~][A-Za-z0-9]{1,40}){0,8}");
    private static final Pattern UNIT = Pattern.compile("(?i).*\\d(?:gb|mb|gib|mib|tb|ghz|mhz|w|%)$");
    private static final Pattern NAME_RUNS = Pattern.compile("[-_.]+");
    private static final Pattern CUDNN_DLL = Pattern.compile("(?i)cudnn\\w{0,40}?64_(\\d{1,2})\\.dll");
    private static final Pattern CUDNN_SO = Pattern.compile("(?i)libcudnn(?:_\\w{1,40})?\\.so\\.(\\d{1,2}(?:\\.\\d{1,3}){0,2})");
    private static final Pattern CUDNN_DYLIB = Pattern.compile("(?i)libcudnn\\.(\\d{1,2}(?:\\.\\d{1,3}){0,2})\\.dylib");
    private static final Pattern CUDART_DLL = Pattern.compile("(?i)cudart64_(\\d{2,3})\\.dll");
    private static final Pattern CUDART_SO = Pattern.compile("(?i)libcudart\\.so\\.(\\d{1,2}(?:\\.\\d{1,3}){0,2})");

    private VersionText() {}

    /** Tells whether a printed value means "not known" ({@code N/A}, {@code Could not collect}, {@code No CUDA}...). */
    static boolean unknown(String value) {
        return value == null || UNKNOWN.contains(value.strip().toLowerCase(Locale.ROOT));
    }

    /** Tells whether {@code token} as a whole is a version ({@code 2.10.1}, {@code 8.x}, {@code 2.0.1+cu117}, {@code 2017}). */
    static boolean isVersion(String token) {
        if (token == null || token.isEmpty() || token.length() > 100) {
            return false;
        }
        String t = token.startsWith("v") || token.startsWith("V") ? token.substring(1) : token;
        if (!VERSION.matcher(t).matches() || UNIT.matcher(t).matches()) {
            return false;
        }
        // a bare word-suffixed number ("10GB", "3rd") is not a version; dotted or all digits is
        return t.indexOf('.') > 0 || t.chars().allMatch(Character::isDigit);
    }

    /**
     * Returns the version a value starts with ({@code 2.4.1 (pip install ...)} gives {@code 2.4.1}), skipping
     * a leading word such as {@code CUDA} or {@code version}; null when it starts with anything else.
     */
    static String leading(String value) {
        if (value == null) {
            return null;
        }
        String[] tokens = value.strip().split("[\\s,;]+", 4);
        for (int i = 0; i < tokens.length && i < 3; i++) {
            String t = trimToken(tokens[i]);
            if (isVersion(t)) {
                return stripV(t);
            }
            if (!LEAD_WORDS.contains(t.toLowerCase(Locale.ROOT))) {
                return null;
            }
        }
        return null;
    }

    /** Returns the last version token of a value ({@code (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0} gives {@code 7.5.0}), or null. */
    static String last(String value) {
        if (value == null) {
            return null;
        }
        String[] tokens = value.strip().split("\\s+");
        for (int i = tokens.length - 1; i >= 0 && i >= tokens.length - 6; i--) {
            String t = trimToken(tokens[i]);
            if (isVersion(t)) {
                return stripV(t);
            }
        }
        return null;
    }

    /** Normalizes a package name as PEP 503 does: lowercase, runs of {@code -_.} as one {@code -}. */
    static String packageName(String raw) {
        String n = NAME_RUNS.matcher(raw.strip().toLowerCase(Locale.ROOT)).replaceAll("-");
        int from = 0;
        int to = n.length();
        while (from < to && n.charAt(from) == '-') {
            from++;
        }
        while (to > from && n.charAt(to - 1) == '-') {
            to--;
        }
        return n.substring(from, to);
    }

    /** Returns the version without a local part ({@code 2.0.1+cu117} gives {@code 2.0.1}). */
    static String withoutLocal(String version) {
        int plus = version.indexOf('+');
        return plus > 0 ? version.substring(0, plus) : version;
    }

    /**
     * Turns a compact CUDA number as wheels and DLLs spell it into a version: {@code 117} is 11.7,
     * {@code 92} is 9.2, {@code 12} (cudart64_12.dll) is 12.
     */
    static String compactCuda(String digits) {
        if (digits.length() == 3) {
            return digits.substring(0, 2) + "." + digits.charAt(2);
        }
        if (digits.length() == 2) {
            return digits.charAt(0) == '1' ? digits : digits.charAt(0) + "." + digits.charAt(1);
        }
        return digits;
    }

    /** Returns the cuDNN version a library name states ({@code cudnn_ops_train64_8.dll}, {@code libcudnn.so.8.9.2}), or null. */
    static String cudnnFromLibrary(String text) {
        Matcher m = CUDNN_DLL.matcher(text);
        if (m.find()) {
            return m.group(1);
        }
        m = CUDNN_SO.matcher(text);
        if (m.find()) {
            return m.group(1);
        }
        m = CUDNN_DYLIB.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** Returns the CUDA runtime version a library name states ({@code cudart64_110.dll}, {@code libcudart.so.11.0}), or null. */
    static String cudaFromLibrary(String text) {
        Matcher m = CUDART_DLL.matcher(text);
        if (m.find()) {
            return compactCuda(m.group(1));
        }
        m = CUDART_SO.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    private static String trimToken(String t) {
        int from = 0;
        int to = t.length();
        while (from < to && "'\"([".indexOf(t.charAt(from)) >= 0) {
            from++;
        }
        while (to > from && "'\"),;:]".indexOf(t.charAt(to - 1)) >= 0) {
            to--;
        }
        return t.substring(from, to);
    }

    private static String stripV(String t) {
        return t.startsWith("v") || t.startsWith("V") ? t.substring(1) : t;
    }
}
