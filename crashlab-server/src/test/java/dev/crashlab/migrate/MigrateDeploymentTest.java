package dev.crashlab.migrate;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Issue 24 item 6 end to end: a real server on the embedded database (H2 in its data folder, local blobs) takes real
 * corpus bundles (one with an .evtx), a confirmed cause, a user with a token and a sign-in (audit rows); it is
 * stopped; {@code crashlab migrate} copies it into a PostgreSQL database and an S3Proxy bucket, is killed with
 * {@code kill -9} midway and run again; a server started on PostgreSQL + S3 then serves every bundle, every file byte
 * for byte, the confirmation, the user's token, the audit trail and the same search hits, passes its readiness check
 * (the bucket's marker and the database agree), and gives a new upload fresh ids.
 */
@Tag("slow")
@BesideInProcessTests
class MigrateDeploymentTest {

    private static final Path CORPUS = Path.of("../shared/corpus");

    private static long upload(ChildServer server, String name, Map<String, Path> files) throws Exception {
        var req = server.api().multiPart("name", name);
        for (var f : files.entrySet()) {
            req = req.multiPart("file", f.getKey(), Files.readAllBytes(f.getValue()), "application/octet-stream");
        }
        return req.when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
    }

    private static void awaitRead(ChildServer server, long id) throws InterruptedException {
        long deadline = System.nanoTime() + 180_000_000_000L;
        String status = "";
        while (System.nanoTime() < deadline) {
            status = server.api().get("/api/bundles/" + id).then().statusCode(200).extract().path("status");
            if (!status.equals("PROCESSING")) {
                break;
            }
            Thread.sleep(300);
        }
        assertThat(status).as("bundle %d read", id).isEqualTo("READY");
    }

    /** What the API shows of the deployment: bundles with their files' bytes, confirmations, search hits. */
    record Seen(Map<Long, String> bundles, Map<String, byte[]> contents, Map<Long, String> confirmed, List<Integer> hits,
            Map<Long, JsonNode> facts) {}

    /** Facts as JSON trees: PostgreSQL's jsonb keeps an object's keys in its own order (an event's data fields). */
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Seen look(ChildServer server, List<Long> ids, String query) {
        Map<Long, String> bundles = new TreeMap<>();
        Map<String, byte[]> contents = new TreeMap<>();
        Map<Long, String> confirmed = new TreeMap<>();
        Map<Long, JsonNode> facts = new TreeMap<>();
        for (long id : ids) {
            JsonPath b = server.api().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
            bundles.put(id, b.getString("name") + " " + b.getString("uploadedAt") + " " + b.getString("status") + " "
                    + b.getList("artifacts.path") + " " + b.getList("artifacts.sha256"));
            for (Map<String, Object> a : b.<Map<String, Object>>getList("artifacts")) {
                contents.put(id + "/" + a.get("id") + " " + a.get("path"), server.api()
                        .get("/api/bundles/" + id + "/artifacts/" + a.get("id") + "/content").then().statusCode(200)
                        .extract().asByteArray());
            }
            confirmed.put(id, String.valueOf(server.api().get("/api/bundles/" + id + "/resolution").then().statusCode(200)
                    .extract().jsonPath().getString("confirmed.articleId")));
            try {
                facts.put(id, JSON.readTree(server.api().get("/api/bundles/" + id + "/facts").then().statusCode(200).extract().asString()));
            } catch (java.io.IOException e) {
                throw new AssertionError("facts of bundle " + id + " are not JSON", e);
            }
        }
        List<Integer> hits = server.api().queryParam("q", query).get("/api/bundles/search").then().statusCode(200)
                .extract().jsonPath().getList("hits.bundleId");
        return new Seen(bundles, contents, confirmed, new ArrayList<>(hits), facts);
    }

    private static long rows(Connection c, String table) throws Exception {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aDeploymentOnTheEmbeddedDatabaseMovesToPostgresAndS3() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        Assumptions.assumeTrue(Files.isDirectory(CORPUS.resolve("crash-bundles")), "needs ../shared/corpus (absent here)");
        Path bundles = CORPUS.resolve("crash-bundles");
        Path evtx = CORPUS.resolve("evtx").resolve("setup-15-records.evtx");

        // 1. a real server on H2 in its own data folder, blobs local
        Path data = Files.createDirectories(Path.of("target", "migrate-deployment", UUID.randomUUID().toString(), "data")
                .toAbsolutePath());
        // both servers take and serve a few small bundles: C1 only (ChildServer.SHORT_LIVED)
        ChildServer h2 = ChildServer.start("migrate-h2", Map.of(), ChildServer.shortLived("-Dquarkus.test.profile=test,h2",
                "-D%h2.crashlab.data-dir=" + data,
                "-D%h2.quarkus.datasource.jdbc.url=jdbc:h2:file:" + data.resolve("db").resolve("crashlab")
                        + ";DB_CLOSE_ON_EXIT=FALSE;LOCK_TIMEOUT=10000",
                "-D%h2.quarkus.datasource.jdbc.acquisition-timeout=120S")); // the first open of a file is slow on a busy machine
        List<Long> ids = new ArrayList<>();
        String query;
        Seen before;
        String token;
        try {
            Map<String, Path> one = new LinkedHashMap<>();
            one.put("crash.log", bundles.resolve("c013/crash.log"));
            ids.add(upload(h2, "c013", one));
            Map<String, Path> two = new LinkedHashMap<>();
            two.put("crash.log", bundles.resolve("c009/crash.log"));
            two.put("env.txt", bundles.resolve("c009/env.txt"));
            two.put("Setup.evtx", evtx);
            ids.add(upload(h2, "c009 with an event log", two));
            Map<String, Path> three = new LinkedHashMap<>();
            three.put("crash.log", bundles.resolve("c014/crash.log"));
            three.put("env.txt", bundles.resolve("c014/env.txt"));
            ids.add(upload(h2, "c014", three));
            for (long id : ids) {
                awaitRead(h2, id);
            }
            h2.api().contentType("application/json").body(Map.of("articleId", "gpu-oom", "note", "confirmed before the move"))
                    .put("/api/bundles/" + ids.get(0) + "/resolution").then().statusCode(200);
            h2.api().contentType("application/json").body(Map.of("username", "dana", "password", "a-long-password",
                    "roles", List.of("viewer", "reporter"))).post("/api/admin/users").then().statusCode(201);
            String session = given().baseUri(h2.url()).port(h2.base().getPort()).contentType("application/json")
                    .body(Map.of("username", "dana", "password", "a-long-password")).post("/api/auth/login").then()
                    .statusCode(200).extract().cookie("crashlab_session");
            token = given().baseUri(h2.url()).port(h2.base().getPort()).cookie("crashlab_session", session).contentType("application/json")
                    .body(Map.of("name", "collector", "roles", List.of("reporter"))).post("/api/tokens").then()
                    .statusCode(201).extract().path("secret");
            query = null;
            for (String q : List.of("memory", "error", "cuda", "dll", "avx")) {
                if (!h2.api().queryParam("q", q).get("/api/bundles/search").then().statusCode(200).extract().jsonPath()
                        .getList("hits").isEmpty()) {
                    query = q;
                    break;
                }
            }
            assertThat(query).as("a word the search finds before the move").isNotNull();
            before = look(h2, ids, query);
            assertThat(before.contents()).hasSize(6);
            assertThat(before.confirmed().get(ids.get(0))).isEqualTo("gpu-oom");
        } finally {
            h2.stop(); // as an operator stops it: the H2 file is closed and no longer held
        }
        h2.close();
        assertThat(Files.exists(data.resolve("db").resolve("crashlab.mv.db"))).isTrue();

        // 2. migrate, killed once midway, then run again
        S3ProxyServer s3 = S3ProxyServer.shared(); // a bucket of this test's own
        String bucket = "migrated-" + UUID.randomUUID().toString().substring(0, 8);
        s3.createBucket(bucket);
        String url = MigrateRuns.freshDatabase("deployment");
        String database = url.substring(url.lastIndexOf('/') + 1);
        Map<String, String> env = MigrateRuns.s3Env(s3, bucket + "/blobs");
        env.put("CRASHLAB_DB_URL", url);

        // killed (kill -9) right after the first two audit rows were committed: midway through a table
        String killed = MigrateRuns.runAndKillIn(env, "audit_event", "--from", data.toString());
        assertThat(killed).contains("blobs: 6 of 6 verified").contains("test pause: 2 rows of audit_event")
                .doesNotContain("done:");
        long auditRows;
        try (Connection source = DriverManager.getConnection(Migrate.h2Url(data, true), "sa", "")) {
            auditRows = rows(source, "audit_event");
        }
        assertThat(auditRows).as("the source's audit rows (user, sign-in, token, confirmation ...)").isGreaterThan(2);
        var resumed = MigrateRuns.run(env, "--from", data.toString());
        assertThat(resumed.status()).as(resumed.output()).isZero();
        assertThat(resumed.output()).contains("continuing an earlier run")
                .contains("rows: audit_event: " + auditRows + " of " + auditRows + " (" + (auditRows - 2) + " new, 2 there from an earlier run)")
                .contains("blobs: 6 of 6 verified (").contains("0 uploaded this run").contains("done:")
                .doesNotContain("LogManager accessed before");
        // no row twice: every table holds as many rows as the source
        try (Connection source = DriverManager.getConnection(Migrate.h2Url(data, true), "sa", "");
                Connection target = DriverManager.getConnection(url, "crashlab", "")) {
            for (String t : List.of("bundle", "artifact", "artifact_facts", "bundle_diagnosis", "bundle_resolution",
                    "app_user", "api_token", "audit_event", "crash_change")) {
                assertThat(rows(target, t)).as(t).isEqualTo(rows(source, t));
            }
            assertThat(rows(target, "audit_event")).isEqualTo(auditRows).isPositive();
            String identity;
            try (Statement st = target.createStatement();
                    ResultSet rs = st.executeQuery("select identity from deployment where id = 1")) {
                rs.next();
                identity = rs.getString(1);
            }
            try (S3Client c = s3.client()) {
                assertThat(c.getObjectAsBytes(b -> b.bucket(bucket).key("blobs/crashlab-deployment")).asUtf8String().strip())
                        .isEqualTo(identity);
            }
        }

        // 3. a server on PostgreSQL + S3 serves it all
        Map<String, String> settings = s3.serverSettings(bucket);
        try (ChildServer pg = ChildServer.onDatabase("migrated", database, settings, ChildServer.SHORT_LIVED)) {
            given().baseUri(pg.url()).port(pg.base().getPort()).get("/q/health/ready").then().statusCode(200);
            String q = query;
            Seen after = null;
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (System.nanoTime() < deadline) { // the new server builds its index from the database first
                after = look(pg, ids, q);
                if (after.hits().equals(before.hits())) {
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(after.bundles()).isEqualTo(before.bundles());
            assertThat(after.contents().keySet()).isEqualTo(before.contents().keySet());
            for (String k : before.contents().keySet()) {
                assertThat(after.contents().get(k)).as(k).isEqualTo(before.contents().get(k));
            }
            assertThat(after.confirmed()).isEqualTo(before.confirmed());
            assertThat(after.facts()).isEqualTo(before.facts());
            assertThat(after.hits()).isEqualTo(before.hits()).isNotEmpty();
            assertThat((String) given().baseUri(pg.url()).port(pg.base().getPort()).header("Authorization", "Bearer " + token).get("/api/auth/me")
                    .then().statusCode(200).extract().path("name")).isEqualTo("dana");
            JsonPath audit = pg.api().queryParam("actor", "dana").get("/api/audit").then().statusCode(200).extract().jsonPath();
            assertThat(audit.getLong("total")).isPositive();

            Map<String, Path> fresh = new LinkedHashMap<>();
            fresh.put("after.log", bundles.resolve("c014/crash.log"));
            long newId = upload(pg, "after the move", fresh);
            assertThat(newId).isGreaterThan(ids.stream().mapToLong(Long::longValue).max().orElseThrow());
            long newArtifact = pg.api().get("/api/bundles/" + newId).then().statusCode(200).extract().jsonPath()
                    .getLong("artifacts[0].id");
            Set<Long> oldArtifacts = new java.util.HashSet<>();
            for (String k : before.contents().keySet()) {
                oldArtifacts.add(Long.parseLong(k.substring(k.indexOf('/') + 1, k.indexOf(' '))));
            }
            assertThat(newArtifact).isGreaterThan(oldArtifacts.stream().mapToLong(Long::longValue).max().orElseThrow());
            awaitRead(pg, newId);
        }
    }
}
