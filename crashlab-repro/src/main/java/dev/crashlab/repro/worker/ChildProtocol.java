package dev.crashlab.repro.worker;

/**
 * Names the contract between a worker and the child JVM it starts for one job: arguments in, a result
 * file and progress lines out.
 *
 * <p>NOTE: the child is started as {@code java ... MAIN --spec FILE --result FILE --backend NAME
 * [--memory-cap BYTES]}. It writes the replay result as JSON to the result file and exits 0, whatever
 * the replay found (a failed replay is a result); any other ending (a non-zero status, a signal, no
 * result file) means the child itself crashed. Lines it prints that start with {@link #PROGRESS_PREFIX}
 * are forwarded to the server with the next heartbeat.
 */
public final class ChildProtocol {

    /** Prefix of a progress line on the child's stdout ({@code progress: layer 3/12 backward-data}). */
    public static final String PROGRESS_PREFIX = "progress: ";

    /** The option naming the spec file. */
    public static final String SPEC = "--spec";
    /** The option naming the result file. */
    public static final String RESULT = "--result";
    /** The option naming the backend ({@code cpu}, {@code cuda}). */
    public static final String BACKEND = "--backend";
    /** The option giving the memory cap in bytes. */
    public static final String MEMORY_CAP = "--memory-cap";
    /** The flag that asks the child to describe its backend's device instead of replaying. */
    public static final String PROBE = "--probe";

    private ChildProtocol() {}

    /**
     * The machine-readable head of a per-pass progress line, {@code [flopDone/flopTotal elapsedMs ms] }: the UI draws
     * a progress bar from the fraction and an ETA from the elapsed time (the replay's work is its FLOP count).
     */
    public static String passProgress(long flopDone, long flopTotal, long elapsedMs) {
        return "[" + flopDone + "/" + flopTotal + " " + elapsedMs + " ms] ";
    }
}
