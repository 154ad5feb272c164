package dev.crashlab.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.BlobStore;
import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code crashlab migrate} on small embedded databases made here with the server's own schema (Flyway, as a server
 * would): the errors an operator can make, each with words and its exit status, and blobs that do not verify (a
 * damaged source file, an object changed in the bucket after upload) failing the run. The whole path from a real
 * server's deployment is {@link MigrateDeploymentTest}.
 */
@Tag("slow")
@BesideInProcessTests
class MigrateCheckTest {

    private static S3ProxyServer s3;
    private static Path work;

    @BeforeAll
    static void startStore() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
        work = Files.createTempDirectory(Files.createDirectories(Path.of("target", "migrate-check").toAbsolutePath()), "run-");
    }

    static String sha256(byte[] b) {
        return HexFormat.of().formatHex(BlobStore.sha256().digest(b));
    }

    /** A data folder as a stopped server leaves it: the schema, an identity, one bundle with its files and blobs. */
    static Path source(String name, Map<String, String> files) throws Exception {
        Path dir = Files.createDirectories(work.resolve(name));
        String url = "jdbc:h2:file:" + dir.resolve("db").resolve("crashlab");
        Migrate.flyway(url, "sa", "", "JSON").migrate();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("update deployment set identity = '" + UUID.randomUUID() + "' where id = 1");
                st.executeUpdate("insert into app_user (username, password_hash, roles, created_at, disabled)"
                        + " values ('ann', 'x', 'admin', current_timestamp, false)");
                st.executeUpdate("insert into bundle (name, uploaded_at, size_bytes, sha256, status) values ('b', "
                        + "timestamp with time zone '2026-11-01 10:00:00+00', 3, '" + "0".repeat(64) + "', 'READY')");
            }
            long bundle;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select max(id) from bundle")) {
                rs.next();
                bundle = rs.getLong(1);
            }
            for (var f : files.entrySet()) {
                byte[] bytes = f.getValue().getBytes(StandardCharsets.UTF_8);
                String sha = sha256(bytes);
                Path blob = dir.resolve("blobs").resolve(sha.substring(0, 2)).resolve(sha.substring(2, 4)).resolve(sha);
                Files.createDirectories(blob.getParent());
                Files.write(blob, bytes);
                try (PreparedStatement ps = c.prepareStatement("insert into artifact (bundle_id, path, size_bytes, sha256,"
                        + " type, parse_status) values (?, ?, ?, ?, 'TEXT', 'PARSED')")) {
                    ps.setLong(1, bundle);
                    ps.setString(2, f.getKey());
                    ps.setLong(3, bytes.length);
                    ps.setString(4, sha);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("insert into artifact_facts (artifact_id, bundle_id, reader_version,"
                    + " bytes_read, facts_json, problems_json, window_json) select min(id), ?, 1, 1, ? format json,"
                    + " '[]' format json, '{}' format json from artifact")) {
                ps.setLong(1, bundle);
                ps.setString(2, "{\"kind\":\"exit\",\"code\":139}");
                ps.executeUpdate();
            }
        }
        return dir;
    }

    private static Map<String, String> env(String db, String bucket) {
        Map<String, String> env = MigrateRuns.s3Env(s3, bucket + "/blobs");
        env.put("CRASHLAB_DB_URL", db);
        return env;
    }

    private static String bucket() {
        String b = "m-" + UUID.randomUUID().toString().substring(0, 8);
        s3.createBucket(b);
        return b;
    }

    private static Map<String, String> files() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("crash.log", "Traceback (most recent call last):\nRuntimeError: CUDA error: out of memory\n");
        f.put("env.txt", "torch: 2.1.0\ncuda: 12.1\n");
        return f;
    }

    @Test
    void badInputIsRefusedWithWordsAndAnExitStatus() throws Exception {
        Path src = source("bad-input", files());
        String db = MigrateRuns.freshDatabase("bad");
        String bucket = bucket();

        var notAFolder = MigrateRuns.run(env(db, bucket), "--from", work.resolve("nowhere").toString());
        assertThat(notAFolder.status()).isEqualTo(2);
        assertThat(notAFolder.output()).contains("does not exist");
        Path empty = Files.createDirectories(work.resolve("just-a-folder"));
        var notCrashLab = MigrateRuns.run(env(db, bucket), "--from", empty.toString());
        assertThat(notCrashLab.status()).isEqualTo(2);
        assertThat(notCrashLab.output()).contains("is not a CrashLab data folder").doesNotContain("Exception");

        var wrongUrl = MigrateRuns.run(env("postgres://localhost/crashlab", bucket), "--from", src.toString());
        assertThat(wrongUrl.status()).isEqualTo(2);
        assertThat(wrongUrl.output()).contains("is not a PostgreSQL JDBC URL");
        Map<String, String> noRole = env(db, bucket);
        noRole.put("CRASHLAB_DB_USER", "nobody_here");
        var refused = MigrateRuns.run(noRole, "--from", src.toString());
        assertThat(refused.status()).isEqualTo(2);
        assertThat(refused.output()).contains("refused the user 'nobody_here'");
        var noDatabase = MigrateRuns.run(env(db + "_missing", bucket), "--from", src.toString());
        assertThat(noDatabase.status()).isEqualTo(2);
        assertThat(noDatabase.output()).contains("does not exist");

        var noBucket = MigrateRuns.run(env(db, "no-such-bucket"), "--from", src.toString());
        assertThat(noBucket.status()).isEqualTo(2);
        assertThat(noBucket.output()).contains("the bucket does not exist");
        Map<String, String> badKey = env(db, bucket);
        badKey.put("CRASHLAB_S3_SECRET_ACCESS_KEY", "wrong-secret");
        var keyRefused = MigrateRuns.run(badKey, "--from", src.toString());
        assertThat(keyRefused.status()).isEqualTo(2);
        assertThat(keyRefused.output()).contains("refused the credentials");

        // a server (here: any program) holding the database: the file is in use
        try (Connection held = DriverManager.getConnection("jdbc:h2:file:" + src.resolve("db").resolve("crashlab"), "sa", "")) {
            var inUse = MigrateRuns.run(env(db, bucket), "--from", src.toString());
            assertThat(inUse.status()).isEqualTo(2);
            assertThat(inUse.output()).contains("is in use").contains("Stop the server");
        }
        for (var r : java.util.List.of(notAFolder, notCrashLab, wrongUrl, refused, noDatabase, noBucket, keyRefused)) {
            assertThat(r.output()).doesNotContain("\tat ");
        }
        // none of these wrote anything into the target
        try (Connection c = DriverManager.getConnection(db, "crashlab", ""); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from information_schema.tables where table_schema = 'public'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    @Test
    void aDamagedSourceFileFailsTheRunAndCopiesNoRow() throws Exception {
        Path src = source("damaged", files());
        String sha = sha256(files().get("env.txt").getBytes(StandardCharsets.UTF_8));
        Path blob = src.resolve("blobs").resolve(sha.substring(0, 2)).resolve(sha.substring(2, 4)).resolve(sha);
        Files.writeString(blob, "torch: 2.1.1\ncuda: 12.1\n");
        String db = MigrateRuns.freshDatabase("damaged");

        var r = MigrateRuns.run(env(db, bucket()), "--from", src.toString());

        assertThat(r.status()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("blobs: 1 of 2 verified").contains("the source file " + blob + " does not hold blob " + sha);
        try (Connection c = DriverManager.getConnection(db, "crashlab", ""); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from bundle")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    @Test
    void anObjectChangedInTheBucketFailsTheNextRun() throws Exception {
        Path src = source("changed", files());
        String db = MigrateRuns.freshDatabase("changed");
        String bucket = bucket();
        var first = MigrateRuns.run(env(db, bucket), "--from", src.toString());
        assertThat(first.status()).as(first.output()).isZero();
        assertThat(first.output()).contains("blobs: 2 of 2 verified").contains("rows: artifact: 2 of 2").contains("done:");
        try (Connection c = DriverManager.getConnection(db, "crashlab", ""); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select facts_json ->> 'code', jsonb_typeof(problems_json) from artifact_facts")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("139"); // JSON, not a string holding JSON
            assertThat(rs.getString(2)).isEqualTo("array");
        }

        String sha = sha256(files().get("crash.log").getBytes(StandardCharsets.UTF_8));
        String key = "blobs/" + sha.substring(0, 2) + "/" + sha.substring(2, 4) + "/" + sha;
        try (S3Client c = s3.client()) {
            c.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("RuntimeError: something else\n"));
        }
        var second = MigrateRuns.run(env(db, bucket), "--from", src.toString());

        assertThat(second.status()).as(second.output()).isEqualTo(1);
        assertThat(second.output()).contains("blobs: 1 of 2 verified").contains("the bucket's copy of blob " + sha + " differs from the source")
                .doesNotContain("done:");
    }

    @Test
    void aDatabaseOfAnotherDeploymentIsRefused() throws Exception {
        String db = MigrateRuns.freshDatabase("other");
        String bucket = bucket();
        var first = MigrateRuns.run(env(db, bucket), "--from", source("one", files()).toString());
        assertThat(first.status()).as(first.output()).isZero();

        Map<String, String> f = new HashMap<>(files());
        f.put("more.txt", "another deployment\n");
        Path two = source("two", f);
        var other = MigrateRuns.run(env(db, bucket()), "--from", two.toString());
        var otherBucket = MigrateRuns.run(env(MigrateRuns.freshDatabase("other2"), bucket), "--from", two.toString());

        assertThat(otherBucket.status()).as(otherBucket.output()).isEqualTo(3);
        assertThat(otherBucket.output()).contains("the bucket prefix s3://" + bucket + "/blobs/ belongs to deployment");

        assertThat(other.status()).as(other.output()).isEqualTo(3);
        assertThat(other.output()).contains("already holds data (bundle, app_user)").contains("Migrate into an empty database");
        try (Connection c = DriverManager.getConnection(db, "crashlab", ""); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from artifact")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(2);
        }
    }
}
