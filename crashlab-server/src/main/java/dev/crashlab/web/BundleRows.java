package dev.crashlab.web;

import dev.crashlab.bundle.BundleStatus;
import dev.crashlab.bundle.BundleViews.BundleSummary;
import dev.crashlab.crashes.service.CrashSearchService;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** The Bundles list's rows: the stored bundle, its likely cause, group and setting, and a name a person can tell apart. */
final class BundleRows {

    private BundleRows() {}

    /**
     * One row of the Bundles list.
     *
     * @param name the name as stored (the name given at upload, else the first file's)
     * @param displayName {@code name}, or for a generic one (a lone {@code crash.log}) the name with the exception or
     *     exit code and the GPU its files name; for the collector's default name ({@code crash-bundle-<date>.zip}), the
     *     error, framework and machine read from its files
     * @param likelyCause the confirmed cause, else the diagnosis' top one; null before the diagnosis or when it has none
     * @param group the crash group's key, or null
     * @param pinned kept by retention whatever its age
     */
    record BundleRow(long id, String name, String displayName, Instant uploadedAt, long size, String sha256, BundleStatus status,
                     long artifactCount, 
                     @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) CrashSearchService.LikelyCause likelyCause, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String group,
                     @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String gpu, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String framework,
                     boolean pinned) {}

    private static final Set<String> ARCHIVE_ENDINGS = Set.of(".zip", ".tar", ".tgz", ".tar.gz", ".gz", ".tar.bz2", ".tbz2");

    /** Names that say nothing about which crash it was. */
    private static final Set<String> GENERIC = Set.of("bundle", "crash", "log", "logs", "output", "out", "stdout", "stderr",
            "console", "error", "errors", "trace", "traceback", "train", "training", "run", "job", "nohup", "debug", "file-1");

    static BundleRow of(BundleSummary b, CrashSearchService.RowFacts f, boolean pinned) {
        return new BundleRow(b.id(), b.name(), displayName(b.name(), b.artifactCount(), f), b.uploadedAt(), b.size(), b.sha256(),
                b.status(), b.artifactCount(), f == null ? null : f.likelyCause(), f == null ? null : f.group(),
                f == null ? null : f.gpu(), f == null ? null : f.framework(), pinned);
    }

    /**
     * The name the list shows: a given or archive name as is; a generic file name ({@code crash.log}, {@code output.txt})
     * followed by what tells the crash apart: its exception or exit code and its GPU, else how many files came with it.
     */
    static String displayName(String name, long artifactCount, CrashSearchService.RowFacts f) {
        if (collectorDefault(name)) {
            return collectorName(name, f);
        }
        if (!generic(name)) {
            return name;
        }
        List<String> parts = new java.util.ArrayList<>();
        parts.add(name);
        if (f != null && f.exception() != null) {
            parts.add(error(f.exception()));
        }
        if (f != null && f.gpu() != null) {
            parts.add(f.gpu());
        }
        if (parts.size() == 1 && artifactCount > 1) {
            parts.add("and " + (artifactCount - 1) + (artifactCount == 2 ? " more file" : " more files"));
        }
        return String.join(" · ", parts);
    }

    /** The name the collector scripts give a bundle unless told otherwise: {@code crash-bundle-<yyyyMMdd-HHmmss>.zip}. */
    private static final Pattern COLLECTOR_DEFAULT = Pattern.compile("crash-bundle-\\d{8}-\\d{6}\\.(zip|tar\\.gz|tgz)",
            Pattern.CASE_INSENSITIVE);

    static boolean collectorDefault(String name) {
        return COLLECTOR_DEFAULT.matcher(name.substring(name.lastIndexOf('/') + 1)).matches();
    }

    /**
     * A collector bundle's name from what was read in it: the error (exception or exit code), the framework, and the
     * machine (its GPU, else its OS: the collectors replace the host name with {@code <host>} by default); the default
     * name itself until the bundle is diagnosed, or when its facts name none of these.
     */
    static String collectorName(String name, CrashSearchService.RowFacts f) {
        if (f == null) {
            return name;
        }
        List<String> parts = new java.util.ArrayList<>();
        if (f.exception() != null) {
            parts.add(error(f.exception()));
        }
        if (f.framework() != null) {
            parts.add(f.framework());
        }
        if (f.gpu() != null) {
            parts.add(f.gpu());
        } else if (f.os() != null) {
            parts.add(f.os());
        }
        return parts.isEmpty() ? name : String.join(" · ", parts);
    }

    // the exception's simple name (tensorflow.python.framework.errors_impl.UnknownError reads as UnknownError); an exit
    // status as the UI writes it elsewhere (the signature's keys are lower case: exit:sigabrt, exit:0xc0000409): a signal
    // by its name in capitals, an NTSTATUS with upper-case hex digits
    private static final Pattern SIGNAL = Pattern.compile("exit sig[a-z0-9+]+", Pattern.CASE_INSENSITIVE);
    private static final Pattern HEX = Pattern.compile("exit 0x[0-9a-f]+", Pattern.CASE_INSENSITIVE);

    static String error(String e) {
        if (SIGNAL.matcher(e).matches()) {
            return "exit " + e.substring("exit ".length()).toUpperCase(Locale.ROOT);
        }
        if (HEX.matcher(e).matches()) {
            return "exit 0x" + e.substring("exit 0x".length()).toUpperCase(Locale.ROOT);
        }
        return e.startsWith("exit ") ? e : e.substring(e.lastIndexOf('.') + 1);
    }

    static boolean generic(String name) {
        String base = name.substring(name.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        for (String ending : ARCHIVE_ENDINGS) {
            if (base.endsWith(ending)) {
                base = base.substring(0, base.length() - ending.length());
                return GENERIC.contains(base);
            }
        }
        int dot = base.indexOf('.');
        String stem = dot < 0 ? base : base.substring(0, dot);
        return GENERIC.contains(stem) || GENERIC.contains(stem.replaceAll("[-_ ]?\\d+$", ""));
    }
}
