package dev.crashlab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.OwnThread;
import dev.crashlab.testing.S3ProxyServer;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 acceptance 2, with two real servers (child JVMs) on one PostgreSQL database and one S3Proxy bucket: while
 * server A sends a 200 MB file to the object store, small uploads on server B take less than twice as long as they
 * take alone (both measured here, the same way). This is the one timed bound the issue asks for.
 *
 * <p>NOTE: "A is sending to the object store" is read from the database: A's claim on the big file's hash
 * ({@code blob_claim}) exists from just before its first byte goes to the store until its rows commit. Only B's uploads
 * started while that claim exists count; with a lock around the transfer the first of them would wait for the rest of
 * it.
 */
@Tag("slow")
class UploadsWithoutALockTest {

    private static final long BIG = 200L * 1024 * 1024;
    /**
     * The pause after each measured small upload, alone and during the transfer alike: B is asked at a steady pace, not
     * as fast as it answers. At full speed B took 325 uploads during one transfer and read and diagnosed each (62 s of
     * its CPU, the transfer slowed by the contention to about 45 s); what is checked, the latency of an upload started
     * while A's claim exists, is the same at this pace.
     */
    private static final long PACE_MS = 500;
    private static S3ProxyServer s3;
    private static Path bigFile;
    private static String bigSha;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
        bigFile = Files.createDirectories(Path.of("target", "uploads-without-a-lock")).resolve("big-" + UUID.randomUUID() + ".bin");
        SplittableRandom random = new SplittableRandom();
        byte[] chunk = new byte[1 << 20];
        java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
        try (OutputStream out = new java.security.DigestOutputStream(Files.newOutputStream(bigFile), digest)) {
            for (long done = 0; done < BIG; done += chunk.length) {
                for (int i = 0; i < chunk.length; i += 8) {
                    long v = random.nextLong();
                    for (int k = 0; k < 8; k++) {
                        chunk[i + k] = (byte) (v >>> (8 * k));
                    }
                }
                out.write(chunk);
            }
        }
        bigSha = java.util.HexFormat.of().formatHex(digest.digest());
    }

    @AfterAll
    static void stop() throws Exception {
        if (bigFile != null) {
            Files.deleteIfExists(bigFile);
        }
    }

    private static long smallUpload(ChildServer server) {
        long t0 = System.nanoTime();
        server.api().multiPart("file", "train.log", ("small upload " + UUID.randomUUID() + "\nRuntimeError: CUDA error\n").getBytes(),
                "text/plain").when().post("/api/bundles").then().statusCode(201);
        return System.nanoTime() - t0;
    }

    private static boolean claimed(Connection c) throws Exception {
        try (java.sql.PreparedStatement s = c.prepareStatement("select count(*) from blob_claim where sha256 = ?")) {
            s.setString(1, bigSha);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1) > 0;
            }
        }
    }

    private static long median(List<Long> xs) {
        List<Long> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    @Test
    void aSmallUploadOnBIsNotSlowedByABigTransferOnA() throws Exception {
        s3.createBucket("crashlab-nolock");
        Map<String, String> settings = s3.serverSettings("crashlab-nolock");
        // the test profile keeps uploads small (4 MiB) so that its over-the-limit cases stay fast: room for 200 MB here
        settings.put("crashlab.upload.max-request-size", "256M");
        settings.put("crashlab.upload.max-expanded-size", "256M");
        try (ChildServer a = ChildServer.start("nolock_a", settings, List.of());
             ChildServer b = ChildServer.sharing("nolock_b", a, settings, List.of());
             Connection db = a.connection()) {
            for (int i = 0; i < 5; i++) {
                smallUpload(b); // warm-up: class loading, JIT, connections
            }
            List<Long> solo = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                solo.add(smallUpload(b));
                Thread.sleep(PACE_MS);
            }

            CompletableFuture<Integer> big = OwnThread.supply("upload-200mb", () -> a.api()
                    .multiPart("file", bigFile.toFile(), "application/octet-stream")
                    .when().post("/api/bundles").statusCode());
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (!claimed(db) && !big.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            List<Long> during = new ArrayList<>();
            while (claimed(db)) { // A is sending the 200 MB to the object store
                during.add(smallUpload(b));
                Thread.sleep(PACE_MS);
            }
            assertThat(big.get()).as("A's 200 MB upload").isEqualTo(201);
            assertThat(during).as("B uploaded while A transferred").hasSizeGreaterThanOrEqualTo(3);

            long soloMedian = median(solo);
            String report = String.format("small upload on B: alone median %.1f ms (%s); during A's 200 MB transfer median %.1f ms,"
                            + " max %.1f ms over %d uploads", soloMedian / 1e6, solo.stream().map(x -> String.format("%.0f", x / 1e6)).toList(),
                    median(during) / 1e6, Collections.max(during) / 1e6, during.size());
            System.out.println(report);
            assertThat(median(during)).as(report).isLessThan(2 * soloMedian);
        }
    }
}
