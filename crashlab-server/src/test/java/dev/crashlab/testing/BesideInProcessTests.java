package dev.crashlab.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Marks a test class that is not a {@code @QuarkusTest} and whose servers are all {@link ChildServer}s (child JVMs on
 * databases and data folders of their own): it runs beside the in-process tests, which run one class after another on
 * one thread (the server pom turns on JUnit's parallel execution with {@code same_thread} as the default). Such a
 * class spends most of its time waiting for its children, so the suite overlaps that wait with the in-process tests.
 * The {@link #LOCK} lets one such class run at a time, its methods in order (a lock on a class makes its methods run on
 * its thread), so that no more than one of them loads the machine at once. Not for a class whose assertions depend on
 * how fast its child runs against something else: {@code KillRecoveryTest} (kills while the reading is under way, which
 * failed beside the in-process tests: all 8 files read before a concurrent upload reached 1 MiB) and
 * {@code UploadsWithoutALockTest} (compares upload latencies before and during a transfer) stay in order.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(BesideInProcessTests.LOCK)
public @interface BesideInProcessTests {

    /** The resource lock the marked classes hold while they run. */
    String LOCK = "dev.crashlab.testing.child-servers";
}
