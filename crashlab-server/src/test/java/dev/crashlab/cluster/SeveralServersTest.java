package dev.crashlab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import dev.crashlab.testing.TestAuth;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Acceptance 2 of issue 14: servers on one PostgreSQL database and one S3 store (a real S3Proxy, bucket
 * {@code crashlab-shared}, prefix {@code blobs/}). A, B and C are real child processes ({@link ChildServer}: A on a
 * database of its own, B and C {@link ChildServer#sharing} it) with data folders of their own. An upload on one is
 * found on the other by search, facets and group within 2 s (each server reads the change log every 200 ms here);
 * killing B with SIGKILL while it takes uploads loses nothing it accepted and leaves nothing half-stored; a new server
 * (empty index folder) builds its index from the database and what B accepted is read (by A or C: whichever takes it
 * over first once B's read lease, 5 s here instead of the default 60 s, has run out).
 *
 * <p>NOTE: A was the test's own {@code @QuarkusTest} app under a test profile of its own; a child costs less than that
 * profile's build and start (and the restart of the profile after it). The scenarios run in order so that B, killed
 * in the second, is started once.
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SeveralServersTest {

    static final long WITHIN_MS = 2000;
    static final String BUCKET = "crashlab-shared";
    static S3ProxyServer s3;
    static Map<String, String> settings;
    static ChildServer a;
    static ChildServer b;

    @BeforeAll
    static void startA() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
        s3.createBucket(BUCKET);
        Map<String, String> m = s3.serverSettings(BUCKET);
        m.put("crashlab.s3.part-size", "5M");
        m.put("crashlab.crash-index.poll-interval", "200ms");
        // a killed server's unfinished bundles are taken over 5 s after its last renewal, not the default 60 s
        m.put("crashlab.ingest.lease", "5s");
        settings = Map.copyOf(m);
        a = ChildServer.start("cluster_a", settings, ChildServer.shortLived("-Xmx768m"));
    }

    static synchronized ChildServer serverB() throws Exception {
        if (b == null || !b.alive()) {
            b = ChildServer.sharing("b", a, settings, ChildServer.shortLived("-Xmx768m"));
        }
        return b;
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (b != null) {
            b.close();
        }
        if (a != null) {
            a.close();
        }
    }

    /** A request as the admin that the test profile provisions on every server. */
    static RequestSpecification given() {
        return RestAssured.given().header("Authorization", "Bearer " + TestAuth.ADMIN_TOKEN);
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
    @Order(1)
    void anUploadOnOneServerIsFoundOnTheOtherBySearchFacetsAndGroup() throws Exception {
        String a = SeveralServersTest.a.url();
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
    @Order(2)
    void killingAServerMidUploadLosesNothingAndANewServerBuildsItsIndexFromTheDatabase() throws Exception {
        String a = SeveralServersTest.a.url();
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
        List<Object[]> artifacts = new ArrayList<>();
        List<Long> withoutArtifacts = new ArrayList<>();
        try (Connection db = SeveralServersTest.a.connection()) {
            try (PreparedStatement q = db.prepareStatement(
                    "select a.bundle_id, a.sha256 from artifact a join bundle b on b.id = a.bundle_id where b.name like ?")) {
                q.setString(1, marker + "%");
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        artifacts.add(new Object[] {r.getLong(1), r.getString(2)});
                    }
                }
            }
            try (PreparedStatement q = db.prepareStatement("select b.id from bundle b where b.name like ?"
                    + " and not exists (select 1 from artifact a where a.bundle_id = b.id)")) {
                q.setString(1, marker + "%");
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        withoutArtifacts.add(r.getLong(1));
                    }
                }
            }
        }
        Set<Long> stored = new java.util.HashSet<>();
        try (S3Client s3c = s3.client()) {
            for (Object[] row : artifacts) {
                stored.add((Long) row[0]);
                String sha = (String) row[1];
                assertThat(sha256(s3c, "blobs/" + sha.substring(0, 2) + "/" + sha.substring(2, 4) + "/" + sha))
                        .as("blob of bundle " + row[0]).isEqualTo(sha);
            }
        }
        assertThat(stored).containsAll(acknowledged.keySet());
        assertThat(withoutArtifacts).as("half-stored bundles").isEmpty();

        // a new server: an empty index folder built from the database; it also reads what B accepted but never read
        try (ChildServer c = ChildServer.sharing("c", SeveralServersTest.a, settings, ChildServer.shortLived("-Xmx768m"))) {
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
        try (InputStream in = new DigestInputStream(s3.getObject(r -> r.bucket(BUCKET).key(key)), d)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(d.digest());
    }
}
