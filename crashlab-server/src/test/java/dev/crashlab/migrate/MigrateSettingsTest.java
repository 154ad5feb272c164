package dev.crashlab.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code crashlab migrate}'s options and settings, refused with words and exit status 2 before anything is opened. */
class MigrateSettingsTest {

    record Run(int status, String out, String err) {}

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new Migrate(new PrintStream(out, true, StandardCharsets.UTF_8), env::get)
                .run(args, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("CRASHLAB_DB_URL", "jdbc:postgresql://127.0.0.1:1/crashlab");
        env.put("CRASHLAB_BLOB_STORE", "s3://bucket/blobs");
        return env;
    }

    @Test
    void helpNamesEveryOptionAndExitsZero() {
        Run r = run(Map.of(), "--help");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("Usage: crashlab migrate").contains("--from DIR", "--to-db URL", "--db-user NAME",
                "--to-blobs ADDRESS", "--s3-endpoint URL", "CRASHLAB_DB_PASSWORD", "Exit status");
    }

    @Test
    void badOptionsAndSettingsAreRefusedWithWords() {
        assertThat(run(env(), "--form", "./data")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err()).contains("unknown option '--form'");
        });
        assertThat(run(env(), "--from")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err()).contains("option --from needs a value");
        });
        Map<String, String> noDb = env();
        noDb.remove("CRASHLAB_DB_URL");
        assertThat(run(noDb).err()).contains("no target database: give --to-db");
        assertThat(run(env(), "--to-db=jdbc:mysql://db/crashlab")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err()).contains("is not a PostgreSQL JDBC URL");
        });
        Map<String, String> noBlobs = env();
        noBlobs.remove("CRASHLAB_BLOB_STORE");
        assertThat(run(noBlobs).err()).contains("no target bucket: give --to-blobs");
        assertThat(run(env(), "--to-blobs", "/var/lib/blobs")).satisfies(r -> {
            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err()).contains("the target bucket '/var/lib/blobs'");
        });
        assertThat(run(env(), "--s3-endpoint", "minio:9000").err()).contains("is not an http(s)://host:port URL");
        Map<String, String> halfKey = env();
        halfKey.put("CRASHLAB_S3_ACCESS_KEY_ID", "key");
        assertThat(run(halfKey).err()).contains("go together");
    }

    @Test
    void optionsOutrankTheEnvironment() throws Exception {
        Migrate.Settings s = new Migrate(System.out, env()::get).settings(new String[] {"--from", "/srv/old",
                "--to-db", "jdbc:postgresql://db:5432/team", "--to-blobs", "s3://team/blobs", "--db-user", "ops"});
        assertThat(s.from().toString()).isEqualTo("/srv/old");
        assertThat(s.dbUrl()).isEqualTo("jdbc:postgresql://db:5432/team");
        assertThat(s.dbUser()).isEqualTo("ops");
        assertThat(s.blobs().bucket()).isEqualTo("team");
    }
}
