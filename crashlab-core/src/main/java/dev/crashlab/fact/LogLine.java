package dev.crashlab.fact;

import java.util.List;

/**
 * A warning, error or fatal line a framework logged ({@code E tensorflow/...cuda_dnn.cc:377] ...}, a failed
 * {@code Check failed:}, a glibc heap abort); informational lines are not kept.
 *
 * @param severity how bad the logger said it was
 * @param origin where it came from: the {@code file.cc:line} a glog/absl line names, or a short tag
 *     ({@code glibc}, {@code tensorflow-status: Internal}, {@code display-driver}), or null
 * @param message the text after the logger's prefix
 * @param sources the line
 */
public record LogLine(Severity severity, String origin, String message, List<SourceRef> sources)
        implements ProcessFact {

    /** The logger's level, as far as it matters for a crash. */
    public enum Severity {
        /** Something looked wrong but the program went on. */
        WARNING,
        /** An operation failed. */
        ERROR,
        /** The program aborted here ({@code F} lines, failed checks). */
        FATAL
    }

    public LogLine {
        sources = List.copyOf(sources);
    }

    @Override
    public LogLine withSources(List<SourceRef> s) {
        return new LogLine(severity, origin, message, s);
    }
}
