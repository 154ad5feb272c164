package dev.crashlab.cluster;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import io.restassured.response.Response;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 24, items 1 and 3 on PostgreSQL + S3Proxy with real servers in child JVMs: a second deployment (new database)
 * on a bucket refuses to start and deletes nothing; a restored older database deletes nothing uploaded after its
 * backup; a store that is down or has no bucket leaves the server up but not ready, and uploads answer 503 naming
 * the object store.
 */
@Tag("slow")
@BesideInProcessTests
class BlobOwnershipTest {

    private static final Pattern UUID_RE = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static S3ProxyServer s3;

    @BeforeAll
    static void startStore() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
    }

    private static Map<String, String> settings(String endpoint, String address) {
        Map<String, String> m = new HashMap<>();
        m.put("crashlab.blob-store", address);
        m.put("crashlab.s3.endpoint", endpoint);
        m.put("crashlab.s3.region", "us-east-1");
        m.put("crashlab.s3.access-key-id", S3ProxyServer.KEY);
        m.put("crashlab.s3.secret-access-key", S3ProxyServer.SECRET);
        m.put("crashlab.s3.path-style", "true");
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

            // a backup of A's database, taken now (A stopped so that PostgreSQL can copy it)
            String backup = a.database() + "_backup";
            a.stop();
            try (Connection c = ChildServer.adminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + backup + " TEMPLATE " + a.database());
            }
            a.start();
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

    @Test
    void aMissingBucketMeansNotReadyAndUploadsAnswer503UntilItExists() throws Exception {
        Map<String, String> settings = settings(s3.endpoint().toString(), "s3://crashlab-not-yet/blobs");
        try (ChildServer c = ChildServer.start("nobucket", settings, ChildServer.SHORT_LIVED)) {
            Response ready = given().get(c.url() + "/q/health/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.asString()).contains("DOWN").contains("s3://crashlab-not-yet/blobs/").contains("object store");
            Response up = c.api().multiPart("file", "train.log", "x\n".getBytes(), "text/plain").when().post("/api/bundles");
            assertThat(up.statusCode()).isEqualTo(503);
            assertThat(up.contentType()).startsWith("application/problem+json");
            assertThat(up.jsonPath().getString("detail")).contains("object store").contains("crashlab-not-yet");

            s3.createBucket("crashlab-not-yet");
            long deadline = System.nanoTime() + 30_000_000_000L;
            int status = 0;
            while (System.nanoTime() < deadline && (status = given().get(c.url() + "/q/health/ready").statusCode()) != 200) {
                Thread.sleep(500);
            }
            assertThat(status).as("ready once the bucket exists").isEqualTo(200);
            upload(c, "now it works " + UUID.randomUUID() + "\n");
            assertThat(keys("crashlab-not-yet")).contains("blobs/crashlab-deployment");
        }
    }

    @Test
    void aStoreThatIsDownMeansNotReadyAndUploadsAnswer503() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        Map<String, String> settings = settings("http://127.0.0.1:" + port, "s3://crashlab-down/blobs");
        try (ChildServer c = ChildServer.start("s3down", settings, ChildServer.SHORT_LIVED)) {
            Response ready = given().get(c.url() + "/q/health/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.asString()).contains("DOWN").contains("s3://crashlab-down/blobs/");
            Response up = c.api().multiPart("file", "train.log", "x\n".getBytes(), "text/plain").when().post("/api/bundles");
            assertThat(up.statusCode()).isEqualTo(503);
            assertThat(up.jsonPath().getString("detail")).contains("object store").contains("crashlab-down");
        }
    }
}
