package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The past-crash index kept in a folder: what was committed is there after reopening, with its bookkeeping. */
class CrashIndexDiskTest {

    @TempDir
    Path dir;

    static CrashSignature sig(String lib) {
        return new CrashSignature(List.of(new SignatureTerm("lib:" + lib, lib, true), new SignatureTerm("os:linux", "linux", false)),
                "OSError: " + lib + ": cannot open shared object file");
    }

    @Test
    void aCommittedIndexReopensWithItsBundlesAndData() throws Exception {
        try (CrashIndex i = CrashIndex.open(dir)) {
            assertThat(i.commitData()).isEmpty();
            i.put(new CrashIndex.Entry(1, sig("libfoo.so"), 1000, false));
            i.put(new CrashIndex.Entry(2, sig("libbar.so"), 2000, true));
            i.put(new CrashIndex.Entry(3, sig("libfoo.so"), 3000, false));
            i.remove(2);
            i.commit(Map.of("mark", "42"));
        }
        assertThat(Files.list(dir)).isNotEmpty();
        try (CrashIndex i = CrashIndex.open(dir)) {
            assertThat(i.commitData()).containsEntry("mark", "42");
            assertThat(i.size()).isEqualTo(2);
            assertThat(i.signature(1)).isEqualTo(sig("libfoo.so"));
            assertThat(i.contains(2)).isFalse();
            assertThat(i.similar(1, 5)).extracting(CrashIndex.Similar::bundleId).containsExactly(3L);
            assertThat(i.query(CrashQuery.parse("lib:libfoo.so"), 0, 10, 0).hits()).extracting(CrashIndex.Hit::bundleId)
                    .containsExactly(3L, 1L);
            i.clear();
            i.commit(Map.of());
        }
        try (CrashIndex i = CrashIndex.open(dir)) {
            assertThat(i.size()).isZero();
        }
    }

    @Test
    void oneProcessAtATimeHoldsAFolder() {
        try (CrashIndex i = CrashIndex.open(dir)) {
            assertThatThrownBy(() -> CrashIndex.open(dir)).hasMessageContaining(dir.toString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aSearchSeesEveryWriteMadeBeforeItWhileAnotherSearchRefreshes() throws Exception {
        try (CrashIndex i = CrashIndex.open(dir)) {
            i.put(new CrashIndex.Entry(1, sig("libbuilt.so"), 1000, false)); // e.g. a build's writes
            java.util.concurrent.CountDownLatch refreshing = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean holdFirst = new java.util.concurrent.atomic.AtomicBoolean(true);
            i.beforeRefresh(() -> {
                if (holdFirst.compareAndSet(true, false)) {
                    refreshing.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            // one search (another thread's similar crashes) starts the refresh and is held inside it
            Thread first = new Thread(() -> i.similarTo(sig("libbuilt.so"), -1, 5));
            first.start();
            assertThat(refreshing.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            // a second search begins meanwhile: it must not answer from the searcher opened before the write
            java.util.concurrent.atomic.AtomicReference<List<Long>> found = new java.util.concurrent.atomic.AtomicReference<>();
            Thread second = new Thread(() -> found.set(i.query(CrashQuery.parse("lib:libbuilt.so"), 0, 10, 0).hits().stream()
                    .map(CrashIndex.Hit::bundleId).toList()));
            second.start();
            second.join(1000); // a search that does not wait for the refresh answers within this
            release.countDown();
            second.join();
            first.join();
            assertThat(found.get()).containsExactly(1L);
        }
    }

    @Test
    void onceSearchedASearchDoesNotQueueBehindAnotherThreadsRefreshForAFewWrites() throws Exception {
        try (CrashIndex i = CrashIndex.open(dir)) {
            i.put(new CrashIndex.Entry(1, sig("libfirst.so"), 1000, false));
            assertThat(i.query(CrashQuery.parse("lib:libfirst.so"), 0, 10, 0).hits()).hasSize(1); // searched once
            i.put(new CrashIndex.Entry(2, sig("libnew.so"), 2000, false)); // e.g. a bundle just diagnosed
            java.util.concurrent.CountDownLatch refreshing = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean holdFirst = new java.util.concurrent.atomic.AtomicBoolean(true);
            i.beforeRefresh(() -> {
                if (holdFirst.compareAndSet(true, false)) {
                    refreshing.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            // a background reading's similar-crash lookup starts the refresh and is held inside it (a starved thread)
            Thread first = new Thread(() -> i.similarTo(sig("libnew.so"), -1, 5));
            first.start();
            assertThat(refreshing.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            java.util.concurrent.atomic.AtomicReference<List<Long>> found = new java.util.concurrent.atomic.AtomicReference<>();
            Thread second = new Thread(() -> found.set(i.query(CrashQuery.parse("lib:libfirst.so"), 0, 10, 0).hits().stream()
                    .map(CrashIndex.Hit::bundleId).toList()));
            second.start();
            second.join(30_000);
            boolean answeredWhileHeld = !second.isAlive();
            release.countDown();
            second.join();
            first.join();
            assertThat(answeredWhileHeld).as("the search answered while the other thread's refresh was held").isTrue();
            assertThat(found.get()).containsExactly(1L);
            // the write shows at the next search once that refresh is done
            assertThat(i.query(CrashQuery.parse("lib:libnew.so"), 0, 10, 0).hits()).extracting(CrashIndex.Hit::bundleId)
                    .containsExactly(2L);
        }
    }
}
