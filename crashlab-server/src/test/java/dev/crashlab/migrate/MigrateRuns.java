package dev.crashlab.migrate;

import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/** Runs {@code crashlab migrate} ({@link Migrate}) in a child JVM, as bin/crashlab does, for the migrate tests. */
final class MigrateRuns {

    private MigrateRuns() {}

    /** What a run printed (stdout and stderr together) and its exit status. */
    record Result(int status, String output) {}

    /** A fresh, empty database on the test PostgreSQL; returns its JDBC URL. */
    static String freshDatabase(String name) throws Exception {
        String db = ("migrate_" + name + "_" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT);
        try (Connection c = ChildServer.adminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        return "jdbc:postgresql://127.0.0.1:" + System.getenv("TEST_PG_PORT") + "/" + db;
    }

    /** The environment a server (and migrate) on this S3Proxy bucket gets. */
    static Map<String, String> s3Env(S3ProxyServer s3, String bucketAndPrefix) {
        Map<String, String> env = new HashMap<>();
        env.put("CRASHLAB_BLOB_STORE", "s3://" + bucketAndPrefix);
        env.put("CRASHLAB_S3_ENDPOINT", s3.endpoint().toString());
        env.put("CRASHLAB_S3_ACCESS_KEY_ID", S3ProxyServer.KEY);
        env.put("CRASHLAB_S3_SECRET_ACCESS_KEY", S3ProxyServer.SECRET);
        env.put("CRASHLAB_S3_PATH_STYLE", "true");
        env.put("CRASHLAB_DB_USER", "crashlab");
        return env;
    }

    /**
     * JVM flags for these runs, which copy a handful of rows and blobs in a second or two: C1 only and the serial
     * collector, so that a run does not spend more CPU on C2 compiler and GC threads than on migrating (14 runs in
     * {@link MigrateCheckTest}, on 2 shared cores). They change how fast the JVM runs the code, not what it does.
     */
    static final List<String> SHORT_RUN_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static Process start(Map<String, String> env, List<String> flags, Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(SHORT_RUN_FLAGS);
        cmd.addAll(flags);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Migrate.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("CRASHLAB_"));
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Runs migrate to its end (at most 5 minutes). */
    static Result run(Map<String, String> env, String... args) throws Exception {
        Path log = Files.createTempFile(Files.createDirectories(Path.of("target", "migrate-runs")), "run-", ".log");
        Process p = start(env, List.of(), log, args);
        if (!p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("migrate did not end within 5 minutes:\n" + Files.readString(log));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /**
     * Runs migrate, two rows a batch, until it has committed the first batch of {@code table} (it says so and waits),
     * then kills it with {@code kill -9}; returns what it printed.
     */
    static String runAndKillIn(Map<String, String> env, String table, String... args) throws Exception {
        Path log = Files.createTempFile(Files.createDirectories(Path.of("target", "migrate-runs")), "killed-", ".log");
        Process p = start(env, List.of("-Dcrashlab.migrate.batch-rows=2", "-Dcrashlab.migrate.test-pause-in-table=" + table),
                log, args);
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!Files.readString(log).contains("test pause:")) {
            if (!p.isAlive()) {
                throw new AssertionError("migrate ended (" + p.exitValue() + ") before the pause:\n" + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("migrate did not reach the pause within 5 minutes:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
        p.destroyForcibly(); // SIGKILL
        p.waitFor();
        return Files.readString(log);
    }
}
