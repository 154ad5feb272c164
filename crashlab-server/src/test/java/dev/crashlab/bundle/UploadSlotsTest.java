package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.metrics.Waits;
import dev.crashlab.unpack.BundleRejectedException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Uploads are stored on a bounded pool of low-priority threads, the caller waiting for the result (plain unit test). */
class UploadSlotsTest {

    static UploadSlots slots(int concurrency, SimpleMeterRegistry registry) throws ReflectiveOperationException {
        CrashLabConfig.Upload upload = (CrashLabConfig.Upload) Proxy.newProxyInstance(UploadSlotsTest.class.getClassLoader(),
                new Class<?>[] {CrashLabConfig.Upload.class}, (p, m, a) -> m.getName().equals("concurrency") ? concurrency : null);
        CrashLabConfig config = (CrashLabConfig) Proxy.newProxyInstance(UploadSlotsTest.class.getClassLoader(),
                new Class<?>[] {CrashLabConfig.class}, (p, m, a) -> m.getName().equals("upload") ? upload : null);
        UploadSlots s = new UploadSlots();
        s.config = config;
        s.waits = new Waits();
        java.lang.reflect.Field f = Waits.class.getDeclaredField("registry"); // injected in the server
        f.setAccessible(true);
        f.set(s.waits, registry);
        return s;
    }

    @Test
    void atMostTheConfiguredNumberRunAtOnceOnLowPriorityThreadsAndTheRestWaitTheirTurn() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        UploadSlots s = slots(2, registry);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Integer> priorities = java.util.Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                results.add(callers.submit(() -> {
                    Waits.enterRoute("BundleResource.uploadArchive");
                    try {
                        return s.run(() -> {
                            most.accumulateAndGet(running.incrementAndGet(), Math::max);
                            priorities.add(Thread.currentThread().getPriority());
                            Thread.sleep(50);
                            running.decrementAndGet();
                            return "stored " + n + " on " + Thread.currentThread().getName();
                        });
                    } finally {
                        Waits.leaveRoute();
                    }
                }));
            }
            for (int i = 0; i < 8; i++) {
                assertThat(results.get(i).get()).startsWith("stored " + i + " on upload-store-");
            }
        } finally {
            s.stop(null);
        }
        assertThat(most.get()).isEqualTo(2);
        assertThat(priorities).hasSize(8).containsOnly(UploadSlots.PRIORITY);
        // every upload's time in line is timed on the caller's route
        assertThat(registry.get(Waits.METER).tag("what", "upload-slot").tag("route", "BundleResource.uploadArchive").timer().count())
                .isEqualTo(8);
    }

    @Test
    void whatTheStepThrowsReachesTheCallerAsItIs() throws Exception {
        UploadSlots s = slots(1, new SimpleMeterRegistry());
        try {
            assertThatThrownBy(() -> s.run(() -> {
                throw new BundleRejectedException(BundleRejectedException.Kind.EMPTY, "holds no files");
            })).isInstanceOf(BundleRejectedException.class).hasMessageContaining("holds no files");
            assertThatThrownBy(() -> s.run(() -> {
                throw new java.io.IOException("disk full");
            })).isInstanceOf(java.io.IOException.class).hasMessage("disk full");
        } finally {
            s.stop(null);
        }
    }
}
