package dev.crashlab.cluster;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import io.restassured.response.Response;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 24, items 1 and 3 on PostgreSQL + S3Proxy with real servers in child JVMs: a second deployment (new database)
 * on a bucket refuses to start and deletes nothing; a restored older database deletes nothing uploaded after its
 * backup; a store that is down or has no bucket leaves the server up but not ready, and uploads answer 503 naming
 * the object store.
 *
 * <p>NOTE: the backup is taken with pg_dump while A runs (no restart for it); the two not-ready scenarios share one
 * server, started while its store is down, whose store then comes up without the bucket (in this order).
 */
@Tag("slow")
@BesideInProcessTests
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BlobOwnershipTest {

    private static final Pattern UUID_RE = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final String LATE_BUCKET = "crashlab-not-yet";
    private static S3ProxyServer s3;
    private static LateStore lateStore;
    private static ChildServer lateServer;

    @BeforeAll
    static void startStore() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
    }

    private static Map<String, String> settings(String endpoint, String address) {
        Map<String, String> m = S3ProxyServer.serverSettings(endpoint, address);
        m.put("crashlab.s3.part-size", "5M");
        // no time-based grace: what protects a restored database's later uploads must be the newest-bundle rule
        m.put("crashlab.blob-grace", "0s");
        return m;
    }

    private static Set<String> keys(String bucket) {
        try (S3Client c = s3.client()) {
            Set<String> out = new TreeSet<>();
            for (S3Object o : c.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
                out.add(o.key());
            }
            return out;
        }
    }

    private static long upload(ChildServer server, String text) {
        return server.api().multiPart("file", "train.log", text.getBytes(), "text/plain").when().post("/api/bundles")
                .then().statusCode(201).extract().jsonPath().getLong("id");
    }

    @Test
    @Order(1)
    void aSecondDeploymentRefusesToStartAndARestoredBackupDeletesNothingNewer() throws Exception {
        s3.createBucket("crashlab-owned");
        Map<String, String> settings = settings(s3.endpoint().toString(), "s3://crashlab-owned/blobs");
        try (ChildServer a = ChildServer.start("owner", settings, ChildServer.SHORT_LIVED)) {
            upload(a, "first upload " + UUID.randomUUID() + "\nRuntimeError: CUDA out of memory\n");
            String ownerId;
            try (S3Client c = s3.client()) {
                ownerId = c.getObjectAsBytes(b -> b.bucket("crashlab-owned").key("blobs/crashlab-deployment")).asUtf8String().strip();
            }
            assertThat(ownerId).matches(UUID_RE);

            // a backup of A's database, taken now
            String backup = a.database() + "_backup";
            backUp(a, backup);
            long later = upload(a, "uploaded after the backup " + UUID.randomUUID() + "\n");
            Set<String> before = keys("crashlab-owned");
            assertThat(before).anyMatch(k -> k.matches("blobs/../../[0-9a-f]{64}"));

            // (a) a second deployment: a new database on the same bucket, while A runs
            Throwable refused = org.assertj.core.api.Assertions.catchThrowable(
                    () -> ChildServer.start("intruder", settings, ChildServer.SHORT_LIVED).close());
            assertThat(refused).as("the second deployment must not start").isNotNull();
            Matcher both = Pattern.compile("belongs to deployment (" + UUID_RE + ").*this server's database belongs to deployment ("
                    + UUID_RE + ")", Pattern.DOTALL).matcher(refused.getMessage());
            assertThat(both.find()).as(refused.getMessage()).isTrue();
            assertThat(both.group(1)).isEqualTo(ownerId);
            assertThat(both.group(2)).isNotEqualTo(ownerId);
            assertThat(keys("crashlab-owned")).as("nothing deleted, marker kept").isEqualTo(before);
            a.api().get("/api/bundles/" + later).then().statusCode(200);

            // (b) restore the older backup under A and restart it: its sweep must keep the later upload's blobs
            a.stop();
            try (Connection c = ChildServer.adminConnection(); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + a.database() + " WITH (FORCE)");
                s.execute("ALTER DATABASE " + backup + " RENAME TO " + a.database());
            }
            a.start();
            a.api().get("/api/bundles/" + later).then().statusCode(404);
            assertThat(a.logTail()).contains("unreferenced blob(s) written after");
            assertThat(keys("crashlab-owned")).as("nothing uploaded after the backup deleted").isEqualTo(before);
        }
    }

    /**
     * The server of the two not-ready scenarios, started once while nothing listens on its store's port (the store is
     * down); {@link #aMissingBucketMeansNotReadyAndUploadsAnswer503UntilItExists} then opens the port, forwarding to
     * S3Proxy, where its bucket does not exist yet. One child instead of one per scenario (a start is about 9 s of CPU).
     */
    private static ChildServer lateStoreServer() throws Exception {
        if (lateServer == null) {
            lateStore = new LateStore(s3.endpoint());
            lateServer = ChildServer.start("latestore", settings("http://127.0.0.1:" + lateStore.port, "s3://" + LATE_BUCKET + "/blobs"),
                    ChildServer.SHORT_LIVED);
        }
        return lateServer;
    }

    @AfterAll
    static void stopLateStore() throws Exception {
        if (lateServer != null) {
            lateServer.close();
        }
        if (lateStore != null) {
            lateStore.close();
        }
    }

    @Test
    @Order(2)
    void aStoreThatIsDownMeansNotReadyAndUploadsAnswer503() throws Exception {
        ChildServer c = lateStoreServer();
        assertThat(lateStore.isOpen()).as("the store is still down (this scenario runs first, @Order)").isFalse();
        Response ready = given().get(c.url() + "/q/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.asString()).contains("DOWN").contains("s3://" + LATE_BUCKET + "/blobs/");
        Response up = c.api().multiPart("file", "train.log", "x\n".getBytes(), "text/plain").when().post("/api/bundles");
        assertThat(up.statusCode()).isEqualTo(503);
        assertThat(up.jsonPath().getString("detail")).contains("object store").contains(LATE_BUCKET);
    }

    @Test
    @Order(3)
    void aMissingBucketMeansNotReadyAndUploadsAnswer503UntilItExists() throws Exception {
        ChildServer c = lateStoreServer();
        if (!lateStore.isOpen()) {
            // the store comes up, without the bucket: wait until the server has looked again (every 2 s while not ready)
            String whileDown = given().get(c.url() + "/q/health/ready").asString();
            lateStore.open();
            long until = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < until && given().get(c.url() + "/q/health/ready").asString().equals(whileDown)) {
                Thread.sleep(250);
            }
        }
        Response ready = given().get(c.url() + "/q/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.asString()).contains("DOWN").contains("s3://" + LATE_BUCKET + "/blobs/").contains("object store");
        Response up = c.api().multiPart("file", "train.log", "x\n".getBytes(), "text/plain").when().post("/api/bundles");
        assertThat(up.statusCode()).isEqualTo(503);
        assertThat(up.contentType()).startsWith("application/problem+json");
        assertThat(up.jsonPath().getString("detail")).contains("object store").contains(LATE_BUCKET);

        s3.createBucket(LATE_BUCKET);
        long deadline = System.nanoTime() + 30_000_000_000L;
        int status = 0;
        while (System.nanoTime() < deadline && (status = given().get(c.url() + "/q/health/ready").statusCode()) != 200) {
            Thread.sleep(500);
        }
        assertThat(status).as("ready once the bucket exists").isEqualTo(200);
        upload(c, "now it works " + UUID.randomUUID() + "\n");
        assertThat(keys(LATE_BUCKET)).contains("blobs/crashlab-deployment");
    }

    /**
     * A backup of a running server's database as an operator takes one (pg_dump, restored with pg_restore into a new
     * database), so that the server need not stop for it; where PostgreSQL's client programs are not found, A is
     * stopped, its database copied ({@code CREATE DATABASE ... TEMPLATE}) and A started again.
     */
    private static void backUp(ChildServer a, String backup) throws Exception {
        Path bin = pgBin();
        if (bin == null) {
            a.stop();
            try (Connection c = ChildServer.adminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + backup + " TEMPLATE " + a.database());
            }
            a.start();
            return;
        }
        Path dump = Files.createDirectories(Path.of("target", "child-servers")).resolve(backup + ".dump").toAbsolutePath();
        String port = System.getenv("TEST_PG_PORT");
        run(bin.resolve("pg_dump").toString(), "-h", "127.0.0.1", "-p", port, "-U", "crashlab", "-Fc", "-f", dump.toString(), a.database());
        try (Connection c = ChildServer.adminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + backup + " TEMPLATE template0");
        }
        run(bin.resolve("pg_restore").toString(), "-h", "127.0.0.1", "-p", port, "-U", "crashlab", "--no-owner", "--exit-on-error",
                "-d", backup, dump.toString());
        Files.delete(dump);
    }

    /** The folder of pg_dump and pg_restore: on the PATH, else the newest /usr/lib/postgresql/N/bin (as scripts/test-pg finds initdb). */
    private static Path pgBin() throws IOException {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "pg_dump")) && Files.isExecutable(Path.of(dir, "pg_restore"))) {
                return Path.of(dir);
            }
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (var versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_dump")) && Files.isExecutable(b.resolve("pg_restore")))
                    .max(java.util.Comparator.comparingInt((Path b) -> versionOf(b.getParent().getFileName().toString()))).orElse(null);
        }
    }

    private static int versionOf(String folder) {
        return folder.matches("\\d+") ? Integer.parseInt(folder) : -1;
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ":\n" + out).isZero();
    }

    /** A port on the loopback where nothing listens until {@link #open}; then it forwards each connection to {@code target}. */
    private static final class LateStore implements AutoCloseable {

        final int port;
        private final URI target;
        private volatile ServerSocket listening;

        LateStore(URI target) throws IOException {
            this.target = target;
            this.port = freePort();
        }

        private static int freePort() throws IOException {
            try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort(); // closed again: nothing listens there until open()
            }
        }

        boolean isOpen() {
            return listening != null;
        }

        synchronized void open() throws IOException {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            listening = s;
            Thread.ofPlatform().daemon().name("late-store").start(() -> {
                while (!s.isClosed()) {
                    try {
                        Socket in = s.accept();
                        Socket out = new Socket(target.getHost(), target.getPort());
                        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger(2);
                        pipe(in, out, open);
                        pipe(out, in, open);
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        /** Copies one direction; when both directions of a connection ended (or one failed), closes both sockets. */
        private static void pipe(Socket from, Socket to, java.util.concurrent.atomic.AtomicInteger open) {
            Thread.ofPlatform().daemon().name("late-store-pipe").start(() -> {
                boolean clean = false;
                try {
                    from.getInputStream().transferTo(to.getOutputStream());
                    to.shutdownOutput();
                    clean = true;
                } catch (IOException gone) {
                    // reset by one side
                }
                if (open.decrementAndGet() == 0 || !clean) {
                    try {
                        from.close();
                        to.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            });
        }

        @Override
        public void close() throws IOException {
            if (listening != null) {
                listening.close();
            }
        }
    }
}
