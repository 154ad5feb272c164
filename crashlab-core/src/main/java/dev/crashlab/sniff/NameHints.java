package dev.crashlab.sniff;

import java.util.Set;

/**
 * Reads what an artifact's file name suggests about its content; used only to break ties and as a last
 * resort, never against clear content.
 */
final class NameHints {

    private NameHints() {}

    private static final java.util.regex.Pattern NOT_WORD = java.util.regex.Pattern.compile("[^a-z0-9]++");

    /** Name words of program output: {@code crash.log}, {@code train_output.txt}, {@code stderr.txt}. */
    private static final Set<String> CONSOLE_WORDS = Set.of(
            "crash", "console", "traceback", "stderr", "stdout", "output", "out", "log", "logs", "error", "errors",
            "trace", "run", "train", "training", "terminal");
    private static final Set<String> CONSOLE_EXTENSIONS = Set.of("log", "out", "err");
    /** Name words of other kinds of logs, which must not be taken for console output ({@code events.log}). */
    private static final Set<String> NOT_CONSOLE_WORDS = Set.of(
            "event", "events", "eventlog", "evtx", "wevtutil", "nvidia", "smi", "dmesg", "kern", "kernel", "syslog",
            "journal", "journalctl", "env", "pip", "conda", "requirements");
    private static final Set<String> ENV_WORDS = Set.of("env", "environment");
    private static final Set<String> KERNEL_WORDS = Set.of("dmesg", "kern", "kernel", "syslog", "journalctl");

    /** Returns the last segment of a bundle path ({@code logs/crash.log} gives {@code crash.log}), lower-cased. */
    static String fileName(String path) {
        if (path == null) {
            return "";
        }
        int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        return SniffText.lower(path.substring(slash + 1));
    }

    /** Tells whether the name says "program output". */
    static boolean saysConsole(String fileName) {
        String[] words = words(fileName);
        for (String w : words) {
            if (NOT_CONSOLE_WORDS.contains(w)) {
                return false;
            }
        }
        String ext = extension(fileName);
        if (CONSOLE_EXTENSIONS.contains(ext)) {
            return true;
        }
        for (String w : words) {
            if (CONSOLE_WORDS.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /** Returns the type a name alone suggests for text that matched no content rule, or null. */
    static ArtifactType fallback(String fileName) {
        for (String w : words(fileName)) {
            if (KERNEL_WORDS.contains(w)) {
                return ArtifactType.KERNEL_LOG;
            }
        }
        if (fileName.startsWith("requirements") && fileName.endsWith(".txt")) {
            return ArtifactType.PIP_FREEZE;
        }
        // a bundle's env.txt that is a person's description (versions in prose, an issue form) rather than any
        // listing's shape is still what the environment reader is for: it picks the versions out of the text
        String ext = extension(fileName);
        for (String w : words(fileName)) {
            if (ENV_WORDS.contains(w) && (ext.equals("txt") || ext.isEmpty())) {
                return ArtifactType.ENV_KEY_VALUE;
            }
        }
        return saysConsole(fileName) ? ArtifactType.CONSOLE_LOG : null;
    }

    private static String extension(String fileName) {
        int dot = fileName.lastIndexOf('.');
        return dot < 0 ? "" : fileName.substring(dot + 1);
    }

    /** Splits {@code train-output_2024.log} into {@code train, output, 2024, log}. */
    private static String[] words(String fileName) {
        return NOT_WORD.split(fileName);
    }
}
