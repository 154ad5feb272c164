package dev.crashlab.parse.console;

import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.PythonException.Frame;
import java.util.ArrayDeque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows Python tracebacks as their lines stream by and turns each exception line into a
 * {@link PythonException} with the frames above it; also standard exception lines with no traceback
 * ({@code RuntimeError: ...} alone) and TF 1.x's {@code XError (see above for traceback): ...}.
 *
 * <p>NOTE: stateful: use one instance per artifact.
 */
final class TracebackTracker {

    private static final Pattern FRAME = Pattern.compile(
            "^\\s{0,40}File \"([^\"]{1,1000})\", line (\\d{1,9}),? in (\\S{1,300})");
    // IPython 8: "File /path/x.py:12, in func(a, b)"; "Cell In[3], line 5"
    private static final Pattern IPYTHON_FRAME = Pattern.compile("^\\s{0,40}File ([^\"\\s][^\"]{0,1000}?):(\\d{1,9}), in ([\\w<>.]{1,300})");
    private static final Pattern CELL = Pattern.compile("^(Cell In\\[\\d{1,6}\\]), line (\\d{1,9})");
    private static final Pattern IN_TRACE_EXCEPTION = Pattern.compile("^([A-Za-z_][\\w.]{0,200})(?:: ?(.*))?$");
    private static final Pattern STANDALONE = Pattern.compile(
            "^((?:[A-Za-z_]\\w{0,60}\\.){0,10}[A-Z]\\w{0,80}(?:Error|Exception|Exit|Interrupt))(?:: ?(.*))?$");
    private static final Pattern SEE_ABOVE = Pattern.compile("^(\\w{1,100}Error) \\(see above for traceback\\): ?(.*)$");

    /** Every literal a line outside a traceback needs for this tracker to act (the prefilter looks for these first). */
    static final String[] LITERALS = {"Traceback (most recent call last)", "File ", "see above for traceback", "Error", "Exception",
        "Exit", "Interrupt"};

    private boolean inTrace;

    /** Tells whether a traceback is open (then every line matters: frames, code lines, the exception line). */
    boolean armed() {
        return inTrace;
    }
    private final ArrayDeque<Frame> frames = new ArrayDeque<>();

    /** Feeds one line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (t.contains("Traceback (most recent call last)")) {
            // "ImportError: Traceback (most recent call last):" ends one traceback and quotes another
            Matcher e = IN_TRACE_EXCEPTION.matcher(t);
            if (inTrace && e.matches() && e.group(2) != null) {
                emit(line, e.group(1), e.group(2), out);
            }
            start();
            return;
        }
        if (t.contains("File ")) {
            Matcher m = FRAME.matcher(t);
            if (m.find() || (m = IPYTHON_FRAME.matcher(t)).find()) {
                if (!inTrace) {
                    start();
                }
                frame(new Frame(m.group(1), parseInt(m.group(2)), m.group(3)));
                return;
            }
        }
        if (inTrace && t.startsWith("Cell In[")) {
            Matcher m = CELL.matcher(t);
            if (m.find()) {
                frame(new Frame(m.group(1), parseInt(m.group(2)), null));
                return;
            }
        }
        if (t.isEmpty() || Character.isWhitespace(t.charAt(0))) {
            return; // code lines, carets, blank lines between frames
        }
        if (inTrace) {
            if (t.startsWith("--") || t.startsWith("During handling") || t.startsWith("The above exception")) {
                return;
            }
            Matcher m = IN_TRACE_EXCEPTION.matcher(t);
            if (m.matches() && (m.group(2) != null || Character.isUpperCase(t.charAt(0)))) {
                emit(line, m.group(1), m.group(2), out);
            }
            inTrace = false;
            frames.clear();
            return;
        }
        if (t.contains("see above for traceback")) {
            Matcher m = SEE_ABOVE.matcher(t);
            if (m.matches()) {
                emit(line, m.group(1), m.group(2), out);
                return;
            }
        }
        if (t.length() < 4096 && Character.isLetter(t.charAt(0))) {
            Matcher m = STANDALONE.matcher(t);
            if (m.matches()) {
                emit(line, m.group(1), m.group(2), out);
            }
        }
    }

    private void start() {
        inTrace = true;
        frames.clear();
    }

    private void frame(Frame f) {
        if (frames.size() == PythonException.MAX_FRAMES) {
            frames.removeFirst();
        }
        frames.addLast(f);
    }

    private void emit(ConsoleLine line, String type, String message, FactSink out) {
        String msg = message == null || message.isBlank() ? null : message.strip();
        out.add(new PythonException(type, msg, List.copyOf(frames), List.of()), line.ref());
        frames.clear();
    }

    private static int parseInt(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
