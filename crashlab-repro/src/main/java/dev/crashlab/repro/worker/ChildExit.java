package dev.crashlab.repro.worker;

import dev.crashlab.repro.JobResult;
import java.util.Locale;

/**
 * Records how a reproduction child process ended: on its own (with its exit status), or killed by the
 * worker (past its wall-clock limit, or cancelled), or never started.
 *
 * <p>NOTE: on Linux a process killed by signal N reports exit status 128 + N, so {@code Runtime.halt(134)}
 * and a SIGABRT look the same; {@link #signal()} names the signal such a status stands for, and
 * {@link #describe()} says "or exited with that status".
 *
 * @param ending how it ended
 * @param exitCode the exit status the OS reported; null if it never started
 * @param signal the signal name an exit status of 129..159 stands for ({@code SIGKILL}); null otherwise
 * @param durationMillis wall-clock time from start to end
 * @param logTail the last lines of the child's combined stdout and stderr
 */
public record ChildExit(Ending ending, Integer exitCode, String signal, long durationMillis, String logTail) {

    /** How a child ended. */
    public enum Ending {
        /** It exited by itself (normally, by a crash, or killed by something other than the worker). */
        EXITED,
        /** The worker killed it at its wall-clock limit. */
        TIMED_OUT,
        /** The worker killed it because the job was cancelled or its lease was lost. */
        CANCELLED,
        /** The JVM could not be started at all. */
        NOT_STARTED
    }

    private static final String[] SIGNALS = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
            "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};

    /** Builds the record for a child that exited (or was killed) with {@code exitCode}. */
    public static ChildExit of(Ending ending, int exitCode, long durationMillis, String logTail) {
        return new ChildExit(ending, exitCode, signalFor(exitCode), durationMillis, logTail);
    }

    /** Returns the signal name an exit status above 128 stands for, or null. */
    public static String signalFor(int exitCode) {
        int n = exitCode - 128;
        if (n <= 0 || n >= 32) {
            return null;
        }
        return n < SIGNALS.length ? SIGNALS[n] : "signal " + n;
    }

    /** This ending as the job result reports it. */
    public JobResult.Child wire() {
        return new JobResult.Child(ending.name().toLowerCase(Locale.ROOT).replace('_', '-'), exitCode, signal,
                durationMillis, describe(), logTail);
    }

    /** Says in words how the child ended, for the job's reason and the UI. */
    public String describe() {
        String seconds = String.format(Locale.ROOT, "%.1f s", durationMillis / 1000.0);
        return switch (ending) {
            case NOT_STARTED -> "the replay process could not be started";
            case TIMED_OUT -> "the replay process ran past its wall-clock limit and was killed after " + seconds;
            case CANCELLED -> "the replay process was killed after " + seconds + " because the job was cancelled";
            case EXITED -> exitCode == 0
                    ? "the replay process exited normally after " + seconds
                    : "the replay process ended with exit status " + exitCode
                            + (signal == null ? "" : " (killed by " + signal + ", or exited with that status)")
                            + " after " + seconds;
        };
    }
}
