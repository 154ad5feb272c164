package dev.crashlab.repro.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.nio.file.Path;

/**
 * Supervises one running child JVM: waits for it in slices (so the caller can heartbeat between them),
 * kills it with its descendants at its limit or on cancel, and records how it ended.
 *
 * <p>NOTE: killing is SIGKILL ({@link Process#destroyForcibly()}): a replay stuck in a driver call does
 * not answer SIGTERM. Not thread-safe except {@link #kill}, which a shutdown hook may call.
 */
public final class ChildRun {

    private final Process process;
    private final Path log;
    private final long startedNanos = System.nanoTime();
    private volatile ChildExit.Ending killedAs;

    ChildRun(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** The child's process id (tests send it signals). */
    public long pid() {
        return process.pid();
    }

    /** Returns whether the child is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Time since the child started. */
    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** Waits up to {@code slice} for the child to end; returns whether it has. */
    public boolean waitFor(Duration slice) throws InterruptedException {
        return process.waitFor(Math.max(1, slice.toMillis()), TimeUnit.MILLISECONDS);
    }

    /** Kills the child and everything it started; {@code why} is how the end is recorded. */
    public void kill(ChildExit.Ending why) {
        if (killedAs == null) {
            killedAs = why;
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** The last lines the child printed so far. */
    public String logTail() {
        return LogTail.read(log, LogTail.DEFAULT_BYTES);
    }

    /**
     * Waits for the child to end, killing it once it has run for {@code limit} in total; returns how it
     * ended. For callers that do not heartbeat in between.
     */
    public ChildExit await(Duration limit) throws InterruptedException {
        Duration left = limit.minus(elapsed());
        if (left.isNegative() || !waitFor(left)) {
            kill(ChildExit.Ending.TIMED_OUT);
        }
        return exit();
    }

    /** Waits for the (ending or killed) child to be gone and returns how it ended. */
    public ChildExit exit() throws InterruptedException {
        int code = process.waitFor();
        long millis = elapsed().toMillis();
        ChildExit.Ending ending = killedAs == null ? ChildExit.Ending.EXITED : killedAs;
        return ChildExit.of(ending, code, millis, logTail());
    }
}
