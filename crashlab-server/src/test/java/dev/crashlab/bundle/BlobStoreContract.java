package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link BlobStore} promises, run against each implementation ({@link LocalBlobStoreContractTest},
 * {@link S3BlobStoreContractTest}): content-addressed, idempotent, whole or absent, streamed.
 */
abstract class BlobStoreContract {

    @TempDir
    Path tmp;

    /** A fresh, empty store. */
    abstract BlobStore store() throws Exception;

    static String sha(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    Path file(String name, byte[] bytes) throws IOException {
        Path p = tmp.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    static String readSha(BlobStore store, String sha) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(store.open(sha), d)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(d.digest());
    }

    @Test
    void aFileGoesInUnderItsHashAndComesBackTheSame() throws Exception {
        BlobStore store = store();
        byte[] bytes = "Traceback (most recent call last):\n".getBytes();
        String sha = sha(bytes);
        assertThat(store.contains(sha)).isFalse();
        Path source = file("a.log", bytes);
        assertThat(store.putFile(source, sha)).isTrue();
        assertThat(source).doesNotExist();
        assertThat(store.contains(sha)).isTrue();
        try (InputStream in = store.open(sha)) {
            assertThat(in.readAllBytes()).isEqualTo(bytes);
        }
        assertThat(store.list()).contains(sha);
    }

    @Test
    void storingTheSameBytesTwiceIsOneBlobAndConsumesTheSource() throws Exception {
        BlobStore store = store();
        byte[] bytes = random(1000, 1);
        String sha = sha(bytes);
        assertThat(store.putFile(file("one", bytes), sha)).isTrue();
        Path again = file("two", bytes);
        assertThat(store.putFile(again, sha)).isFalse();
        assertThat(again).doesNotExist();
        assertThat(store.put(new ByteArrayInputStream(bytes))).isEqualTo(sha);
        assertThat(store.list().stream().filter(sha::equals)).hasSize(1);
    }

    @Test
    void aStreamIsStoredUnderTheHashOfWhatItYielded() throws Exception {
        BlobStore store = store();
        byte[] bytes = random(300_000, 2);
        String sha = store.put(new ByteArrayInputStream(bytes));
        assertThat(sha).isEqualTo(sha(bytes));
        assertThat(readSha(store, sha)).isEqualTo(sha);
    }

    @Test
    void aBlobLargerThanOnePartComesBackWhole() throws Exception {
        BlobStore store = store();
        // 12 MiB and a bit: three parts of 5 MiB (the S3 store's part size in these tests), the last one short
        byte[] bytes = random(12 * 1024 * 1024 + 12345, 3);
        String sha = sha(bytes);
        assertThat(store.putFile(file("big.bin", bytes), sha)).isTrue();
        assertThat(store.contains(sha)).isTrue();
        assertThat(readSha(store, sha)).isEqualTo(sha);
        try (InputStream in = store.open(sha)) {
            assertThat(in.readAllBytes()).isEqualTo(bytes);
        }
    }

    @Test
    void deletingSaysWhetherTheBlobWasThereAndItIsGoneAfterwards() throws Exception {
        BlobStore store = store();
        byte[] bytes = random(10, 4);
        String sha = sha(bytes);
        assertThat(store.delete(sha)).isFalse();
        store.putFile(file("x", bytes), sha);
        assertThat(store.delete(sha)).isTrue();
        assertThat(store.contains(sha)).isFalse();
        assertThat(store.list()).doesNotContain(sha);
        assertThatThrownBy(() -> store.open(sha).close()).isInstanceOf(NoSuchFileException.class);
        assertThat(store.delete(sha)).isFalse();
    }

    @Test
    void concurrentPutsOfTheSameBytesLeaveOneWholeBlob() throws Exception {
        BlobStore store = store();
        byte[] bytes = random(6 * 1024 * 1024, 5);
        String sha = sha(bytes);
        List<Path> sources = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sources.add(file("c" + i, bytes));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (Path p : sources) {
                results.add(pool.submit((Callable<Boolean>) () -> store.putFile(p, sha)));
            }
            int fresh = 0;
            for (Future<Boolean> f : results) {
                fresh += f.get() ? 1 : 0;
            }
            assertThat(fresh).as("at least one put stored it").isGreaterThanOrEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(sources).allSatisfy(p -> assertThat(p).doesNotExist());
        assertThat(readSha(store, sha)).isEqualTo(sha);
        assertThat(store.list().stream().filter(sha::equals)).hasSize(1);
    }

    @Test
    void aHashThatIsNotOneIsRefused() throws Exception {
        BlobStore store = store();
        assertThatThrownBy(() -> store.contains("../../etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.open("ABC")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void clearingWhatCrashesLeftNeverTouchesStoredBlobs() throws Exception {
        BlobStore store = store();
        byte[] bytes = random(100, 6);
        String sha = sha(bytes);
        store.putFile(file("k", bytes), sha);
        store.clearIncoming(java.time.Duration.ZERO);
        assertThat(store.contains(sha)).isTrue();
        assertThat(readSha(store, sha)).isEqualTo(sha);
    }
}
