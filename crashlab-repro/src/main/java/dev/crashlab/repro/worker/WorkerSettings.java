package dev.crashlab.repro.worker;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Configures one worker: who it is, what it runs, and the limits each job's child JVM runs under.
 *
 * @param name the worker's name (unique per server)
 * @param backend the backend its children use ({@code cpu}, {@code cuda})
 * @param pollInterval the pause between claims while the queue is empty
 * @param timeLimit the wall-clock limit of one child
 * @param childMaxHeap the child's {@code -Xmx} ({@code 2g})
 * @param scratch a folder for each job's spec, result and log
 * @param childMain the child's main class ({@link ChildProtocol} describes its contract)
 * @param classpath the child's classpath
 */
public record WorkerSettings(String name, String backend, Duration pollInterval, Duration timeLimit,
        String childMaxHeap, Path scratch, String childMain, String classpath) {

    /** The main class that replays a spec in the child. */
    public static final String REPLAY_MAIN = "dev.crashlab.repro.worker.ReplayChild";

    /** Returns a copy with another child main class (tests use crashing and hanging ones). */
    public WorkerSettings withChildMain(String main) {
        return new WorkerSettings(name, backend, pollInterval, timeLimit, childMaxHeap, scratch, main, classpath);
    }

    /** Returns a copy with another wall-clock limit. */
    public WorkerSettings withTimeLimit(Duration limit) {
        return new WorkerSettings(name, backend, pollInterval, limit, childMaxHeap, scratch, childMain, classpath);
    }

    /** Describes the child JVM that runs {@code args}. */
    ChildJvm child(java.util.List<String> args) {
        return new ChildJvm(Path.of(System.getProperty("java.home"), "bin", "java"), classpath, childMaxHeap,
                ChildJvm.DEFAULT_FLAGS, childMain, args);
    }
}
