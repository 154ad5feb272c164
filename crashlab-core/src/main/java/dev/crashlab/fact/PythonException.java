package dev.crashlab.fact;

import java.util.List;

/**
 * One Python exception a traceback ended with; each exception of a chain ("During handling of the above
 * exception...") is a fact of its own.
 *
 * @param type the exception's type as printed ({@code RuntimeError}, {@code tensorflow.python.framework.errors_impl.InternalError})
 * @param message the first line of its message, or null when it had none
 * @param frames the traceback's frames, innermost last (at most the last {@code MAX_FRAMES}); empty when none were shown
 * @param sources the exception line
 */
public record PythonException(String type, String message, List<Frame> frames, List<SourceRef> sources)
        implements ProcessFact {

    /** The most frames kept: the innermost ones, where the framework and the failing call are. */
    public static final int MAX_FRAMES = 20;

    /**
     * One frame of a traceback.
     *
     * @param file the file as printed ({@code /usr/lib/python3.8/site-packages/torch/nn/modules/conv.py}, {@code <stdin>})
     * @param line the 1-based line number, or 0 when not printed
     * @param function the function's name ({@code <module>} at top level), or null when not printed
     */
    public record Frame(String file, int line, String function) {}

    public PythonException {
        frames = List.copyOf(frames);
        sources = List.copyOf(sources);
    }

    @Override
    public PythonException withSources(List<SourceRef> s) {
        return new PythonException(type, message, frames, s);
    }
}
