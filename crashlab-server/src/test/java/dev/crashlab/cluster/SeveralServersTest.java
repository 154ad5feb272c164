package dev.crashlab.cluster;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.Artifact;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.testing.ChildServer;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Acceptance 2 of issue 14: servers on one PostgreSQL and one S3 store (a real S3Proxy). This test's own app is
 * server A; B and C are real child processes ({@link ChildServer#onTestDatabase}) with data folders of their own. An upload on one
 * is found on the other by search, facets and group within 2 s (each server reads the change log every 200 ms here);
 * killing B with SIGKILL while it takes uploads loses nothing it accepted and leaves nothing half-stored; a new server
 * (empty index folder) builds its index from the database and what B accepted is read (by A or C: whichever takes it
 * over first once B's read lease, 5 s here instead of the default 60 s, has run out).
 */
@QuarkusTest
@TestProfile(SharedStorageProfile.class)
class SeveralServersTest {

    static final long WITHIN_MS = 2000;
    static ChildServer b;

    @TestHTTPResource("/")
    URL self;

    static synchronized ChildServer serverB() throws Exception {
        if (b == null || !b.alive()) {
            b = ChildServer.onTestDatabase("b", SharedStorageProfile.SETTINGS, ChildServer.shortLived("-Xmx768m"));
        }
        return b;
    }

    @AfterAll
    static void stopB() throws Exception {
        if (b != null) {
            b.close();
        }
    }

    String a() {
        return self.toString().replaceAll("/+$", "");
    }

    static String lib() {
        return "libclustertest" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + ".so";
    }

    static String log(String lib) {
        return "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import torch\n"
                + "OSError: " + lib + ": cannot open shared object file: No such file or directory\n";
    }

    static final Path OOM = Path.of("crashlab-core/src/test/resources/kb-fixtures/gpu-oom");

    /** A bundle with a setting to count: the log with its unique library, and a GPU crash's nvidia-smi and environment. */
    static long uploadWithSetting(String server, String name, String lib) throws java.io.IOException {
        return given().multiPart("file", name, log(lib).getBytes(), "text/plain")
                .multiPart("file", "nvidia-smi.txt", Files.readAllBytes(OOM.resolve("nvidia-smi.txt")), "text/plain")
                .multiPart("file", "env.txt", Files.readAllBytes(OOM.resolve("env.txt")), "text/plain")
                .when().post(server + "/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
    }

    static long upload(String server, String name, byte[] body) {
        return given().multiPart("file", name, body, "text/plain").when().post(server + "/api/bundles")
                .then().statusCode(201).extract().jsonPath().getLong("id");
    }

    static void awaitReady(String server, long id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if ("READY".equals(given().get(server + "/api/bundles/" + id).then().statusCode(200).extract().path("status"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("bundle " + id + " was not READY on " + server + " within 120 s");
    }

    static JsonPath search(String server, String q) {
        return given().queryParam("q", q).when().get(server + "/api/bundles/search").then().statusCode(200).extract().jsonPath();
    }

    /** Polls until the condition holds; returns the milliseconds it took, or fails after {@code withinMs}. */
    static long within(long withinMs, String what, Supplier<Boolean> condition) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            if (condition.get()) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            if (System.nanoTime() - start > withinMs * 1_000_000) {
                throw new AssertionError(what + " did not happen within " + withinMs + " ms");
            }
            Thread.sleep(20);
        }
    }

    @Test
    void anUploadOnOneServerIsFoundOnTheOtherBySearchFacetsAndGroup() throws Exception {
        String a = a();
        String b = serverB().url();
        String lib = lib();
        search(b, "lib:" + lib); // B's index is open (built from the database) before the upload

        long id = uploadWithSetting(a, "cluster-a.log", lib);
        awaitReady(a, id);
        long found = within(WITHIN_MS, "B finding A's upload", () -> search(b, "lib:" + lib).getList("hits.bundleId", Long.class).contains(id));
        System.out.printf("several servers: A's upload found on B %d ms after A had it%n", found);

        JsonPath onA = search(a, "lib:" + lib);
        JsonPath onB = search(b, "lib:" + lib);
        Map<String, Object> facets = onB.getMap("facets");
        assertThat(facets).isEqualTo(onA.getMap("facets"));
        assertThat(facets.values()).as("its GPU, driver, CUDA count in B's facets").filteredOn(v -> !((List<?>) v).isEmpty()).hasSizeGreaterThanOrEqualTo(2);
        System.out.println("several servers: facets on B " + facets);
        String group = onB.getString("hits[0].group");
        assertThat(group).isNotNull().isEqualTo(onA.getString("hits[0].group"));
        assertThat(given().when().get(b + "/api/groups/" + group).then().statusCode(200).extract().jsonPath()
                .getList("bundles.bundleId", Long.class)).contains(id);

        // and the other way round: B's upload on A; then a delete on A disappears from B
        String lib2 = lib();
        long id2 = upload(b, "cluster-b.log", log(lib2).getBytes());
        awaitReady(b, id2);
        long back = within(WITHIN_MS, "A finding B's upload", () -> search(a, "lib:" + lib2).getList("hits.bundleId", Long.class).contains(id2));
        System.out.printf("several servers: B's upload found on A %d ms after B had it%n", back);
        // the blob B stored is read back through A
        long artifact = given().when().get(a + "/api/bundles/" + id2).then().statusCode(200).extract().jsonPath().getLong("artifacts[0].id");
        assertThat(given().when().get(a + "/api/bundles/" + id2 + "/artifacts/" + artifact + "/content").then().statusCode(200)
                .extract().asString()).isEqualTo(log(lib2));

        given().when().delete(a + "/api/bundles/" + id).then().statusCode(204);
        long gone = within(WITHIN_MS, "B forgetting a bundle deleted on A", () -> search(b, "lib:" + lib).getLong("total") == 0);
        System.out.printf("several servers: A's delete gone from B after %d ms%n", gone);
    }

    @Test
    void killingAServerMidUploadLosesNothingAndANewServerBuildsItsIndexFromTheDatabase() throws Exception {
        String a = a();
        ChildServer victim = serverB();
        String b = victim.url();
        String before = lib();
        long old = upload(a, "before-c.log", log(before).getBytes());
        awaitReady(a, old);
        assertThat(search(a, "lib:" + before).getList("hits.bundleId", Long.class)).as("diagnosed and signed on A").containsExactly(old);

        String marker = "killtest-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Map<Long, String> acknowledged = new ConcurrentHashMap<>(); // bundle id -> its library
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService uploaders = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            int thread = t;
            uploaders.submit(() -> {
                for (int n = 0; !stop.get(); n++) {
                    // about 2.5 MiB of text each, all different: the blobs take a while to reach the store
                    String lib = lib();
                    StringBuilder text = new StringBuilder(log(lib));
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (text.length() < 2_500_000) {
                        text.append("step ").append(r.nextLong()).append(" loss ").append(r.nextDouble()).append('\n');
                    }
                    try {
                        acknowledged.put(upload(b, marker + "-" + thread + "-" + n + ".log", text.toString().getBytes()), lib);
                    } catch (Throwable killed) {
                        return; // the server went away mid-request
                    }
                }
            });
        }
        within(120_000, "B accepting three uploads", () -> acknowledged.size() >= 3);
        victim.killHard(); // SIGKILL, with uploads in flight
        stop.set(true);
        uploaders.shutdown();
        assertThat(uploaders.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        System.out.printf("several servers: B killed after accepting %d upload(s)%n", acknowledged.size());

        // every bundle row B committed names blobs that are whole in the store; every accepted upload has its row
        List<Object[]> artifacts = QuarkusTransaction.requiringNew().call(() -> Artifact.getEntityManager().createQuery(
                "select a.bundle.id, a.sha256 from Artifact a where a.bundle.name like :m", Object[].class)
                .setParameter("m", marker + "%").getResultList());
        Set<Long> stored = new java.util.HashSet<>();
        try (S3Client s3 = SharedStorageProfile.s3.client()) {
            for (Object[] row : artifacts) {
                stored.add((Long) row[0]);
                String sha = (String) row[1];
                assertThat(sha256(s3, "blobs/" + sha.substring(0, 2) + "/" + sha.substring(2, 4) + "/" + sha))
                        .as("blob of bundle " + row[0]).isEqualTo(sha);
            }
        }
        assertThat(stored).containsAll(acknowledged.keySet());
        List<Long> withoutArtifacts = QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager().createQuery(
                "select b.id from Bundle b where b.name like :m and b.artifacts is empty", Long.class)
                .setParameter("m", marker + "%").getResultList());
        assertThat(withoutArtifacts).as("half-stored bundles").isEmpty();

        // a new server: an empty index folder built from the database; it also reads what B accepted but never read
        try (ChildServer c = ChildServer.onTestDatabase("c", SharedStorageProfile.SETTINGS, ChildServer.shortLived("-Xmx768m"))) {
            String url = c.url();
            assertThat(search(url, "lib:" + before).getList("hits.bundleId", Long.class)).containsExactly(old);
            for (long id : stored) {
                awaitReady(url, id);
            }
            long all = within(WITHIN_MS, "the killed server's accepted bundles searchable on A and C",
                    () -> acknowledged.entrySet().stream().allMatch(e -> search(a, "lib:" + e.getValue()).getList("hits.bundleId", Long.class)
                            .contains(e.getKey()) && search(url, "lib:" + e.getValue()).getList("hits.bundleId", Long.class).contains(e.getKey())));
            System.out.printf("several servers: %d bundle(s) of the killed server read by C, searchable on A after %d ms%n",
                    stored.size(), all);
        }
    }

    static String sha256(S3Client s3, String key) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(s3.getObject(r -> r.bucket("crashlab-shared").key(key)), d)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(d.digest());
    }
}
