package dev.crashlab.testing;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Blocking test work (a slow upload that takes minutes) on a thread of its own, never on the common
 * {@link java.util.concurrent.ForkJoinPool}.
 *
 * <p>The common pool has one thread on a 2-core machine. The child-server classes run beside the in-process tests
 * ({@link BesideInProcessTests}), in the same JVM, and an upload there given to {@code CompletableFuture.supplyAsync}
 * held that one thread for minutes; meanwhile every in-process test that needed the pool waited: RestAssured's first
 * request after a Quarkus start initialises Groovy, whose default imports are computed on the common pool, so a POST
 * in LocalWorkerSupervisionTest took 20-40 s to leave the test (and Quarkus logged "Timed out trying to set fork join
 * ClassLoader"). {@code ArchitectureTest} keeps test and main code off the common pool.
 */
public final class OwnThread {

    private OwnThread() {}

    /** Starts {@code work} on a new daemon thread named {@code name}; its result (or failure) completes the future. */
    public static <T> CompletableFuture<T> supply(String name, Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().name(name).daemon(true).start(() -> {
            try {
                result.complete(work.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
