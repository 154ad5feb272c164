package dev.crashlab.testing;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * A real CrashLab server in a child JVM, for tests that kill it ({@code kill -9}) and start it again on the same
 * data, or that run several servers at once. {@link #start}: its own PostgreSQL database (made on the test server,
 * {@code TEST_PG_PORT}) and its own data folder, so what it stores is this test's alone; {@link #onTestDatabase}:
 * the test's own database (several servers sharing it), with a data folder of its own. The child runs the
 * application that Maven built once for all children before the tests ({@code target/child-app}, execution
 * {@code child-app} in the server's pom: the PostgreSQL build) with {@code java -jar} in the test profile, so that
 * no child builds the application again; extra settings are given as {@code %test} system properties (they outrank
 * the test profile's). Where that build is missing (e.g. {@code -Dchild-app.skip=true}, or a test run from
 * an IDE) the child runs {@link ServedAppMain} instead: the application as every {@code @QuarkusTest} builds it,
 * which takes minutes per start.
 */
public final class ChildServer implements AutoCloseable {

    private static final String ADMIN = "Bearer " + TestAuth.ADMIN_TOKEN;
    /** System property naming the built app's {@code quarkus-run.jar} (set by the server's pom for surefire). */
    public static final String APP_JAR = "child-server.app";
    private static final java.util.regex.Pattern LISTENING = java.util.regex.Pattern.compile("Listening on: (https?://\\S+)");

    /**
     * JVM flags for a child that starts, serves a few small requests and is killed: C1 only, no C2 (a child start on
     * the PostgreSQL build took 10.0 s CPU with them against 15.9 s without, load ~21). Not for a child that hashes or
     * reads much data: C1 code has no SHA-256 intrinsic (about a tenth of C2's speed here).
     */
    public static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1");

    /** {@link #SHORT_LIVED} and the given flags. */
    public static List<String> shortLived(String... more) {
        List<String> out = new ArrayList<>(SHORT_LIVED);
        out.addAll(List.of(more));
        return List.copyOf(out);
    }

    private final Path dir;
    private final Path dataDir;
    private final String database; // null: the test's own database, shared, never dropped
    private final Map<String, String> settings;
    private final List<String> jvmFlags;
    private boolean ownsDatabase = true;
    private Process process;
    private URI base;
    private Path gcLog;
    private int starts;

    private ChildServer(Path dir, String database, Map<String, String> settings, List<String> jvmFlags) {
        this.dir = dir;
        this.dataDir = dir.resolve("data");
        this.database = database;
        this.settings = settings;
        this.jvmFlags = jvmFlags;
    }

    /** Tells whether the test PostgreSQL runs (scripts/test-pg sets TEST_PG_PORT). */
    public static boolean postgresAvailable() {
        return System.getenv("TEST_PG_PORT") != null;
    }

    /**
     * Makes a fresh database and data folder under {@code target/child-servers/} and starts a server on them.
     *
     * @param settings CrashLab/Quarkus settings for the test profile (given as {@code -D%test.<key>=<value>})
     * @param jvmFlags extra JVM flags (e.g. {@code -Xmx512m})
     */
    public static ChildServer start(String name, Map<String, String> settings, List<String> jvmFlags)
            throws IOException, SQLException, InterruptedException {
        String db = ("child_" + name + "_" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9_]", "_");
        String template = migratedTemplate();
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db + (template == null ? "" : " TEMPLATE " + template));
        }
        Path dir = Files.createDirectories(Path.of("target", "child-servers", db).toAbsolutePath());
        ChildServer server = new ChildServer(dir, db, settings, jvmFlags);
        server.start();
        return server;
    }

    /**
     * Starts a server on an existing database of the test PostgreSQL (one a test filled, a migrated one) with a fresh
     * data folder under {@code target/child-servers/}; closing it drops that database.
     */
    public static ChildServer onDatabase(String name, String database, Map<String, String> settings, List<String> jvmFlags)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(Path.of("target", "child-servers", database + "-" + name).toAbsolutePath());
        ChildServer server = new ChildServer(dir, database, settings, jvmFlags);
        server.start();
        return server;
    }

    /**
     * Starts a server on the test's own database (the one {@code @QuarkusTest} uses, shared with the test's app and
     * any other such server) with a fresh data folder under {@code target/child-servers/}; closing it stops it and
     * keeps the database.
     */
    public static ChildServer onTestDatabase(String name, Map<String, String> settings, List<String> jvmFlags)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(Path.of("target", "child-servers", name + "-" + System.nanoTime()).toAbsolutePath());
        ChildServer server = new ChildServer(dir, null, settings, jvmFlags);
        server.start();
        return server;
    }

    /**
     * Starts a second server on {@code other}'s own database (see {@link #start}) with a fresh data folder of its own;
     * closing it stops it and leaves the database to {@code other}.
     */
    public static ChildServer sharing(String name, ChildServer other, Map<String, String> settings, List<String> jvmFlags)
            throws IOException, InterruptedException {
        if (other.database == null) {
            throw new IllegalArgumentException("share a server's own database (ChildServer.start), not the test's");
        }
        Path dir = Files.createDirectories(Path.of("target", "child-servers", other.database + "-" + name).toAbsolutePath());
        ChildServer server = new ChildServer(dir, other.database, settings, jvmFlags);
        server.ownsDatabase = false;
        server.start();
        return server;
    }

    private static String template;
    private static boolean templateTried;

    /**
     * A database of the test PostgreSQL that holds this checkout's schema (Flyway run here, as the server runs it:
     * the same migrations, placeholder and out-of-order setting) and nothing else, made once and reused, named after
     * the migrations' hash; {@link #start} copies it ({@code CREATE DATABASE ... TEMPLATE}), so that a fresh child
     * finds its schema in place instead of migrating an empty database (about 2.6 s of CPU per child). Its deployment
     * row has no identity yet: the first server on each copy makes its own, as on an empty database. Null where it
     * cannot be made (the reason printed): children then migrate their empty databases themselves.
     */
    static synchronized String migratedTemplate() {
        if (templateTried) {
            return template;
        }
        templateTried = true;
        long t0 = System.nanoTime();
        try {
            String name = "child_template_" + migrationsHash();
            try (Connection c = admin(); Statement s = c.createStatement()) {
                if (!databaseExists(c, name)) {
                    String building = name + "_" + UUID.randomUUID().toString().substring(0, 8);
                    s.execute("CREATE DATABASE " + building);
                    try {
                        org.flywaydb.core.Flyway.configure(ChildServer.class.getClassLoader())
                                .dataSource(url(building), "crashlab", "").locations("classpath:db/migration")
                                .placeholders(Map.of("json_type", "JSONB")).outOfOrder(true).load().migrate();
                        // renaming (and copying) needs the database without sessions: end any Flyway left open
                        s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + building + "'");
                        for (int i = 0; i < 100 && sessions(c, building) > 0; i++) {
                            Thread.sleep(50);
                        }
                        s.execute("ALTER DATABASE " + building + " RENAME TO " + name);
                    } catch (RuntimeException | SQLException e) {
                        s.execute("DROP DATABASE IF EXISTS " + building + " WITH (FORCE)");
                        if (!databaseExists(c, name)) { // else another JVM made it meanwhile
                            throw e;
                        }
                    }
                }
            }
            template = name;
            System.out.printf(Locale.ROOT, "child servers: fresh databases are copies of %s (ready after %.1f s)%n", name,
                    (System.nanoTime() - t0) / 1e9);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | SQLException | IOException e) {
            System.out.println("child servers: no migrated template database (" + e + "); each child migrates its own");
        }
        return template;
    }

    /** The first 12 hex digits of a SHA-256 over the migrations' names and bytes ({@code db-migrations/}). */
    private static String migrationsHash() throws IOException {
        try {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
            try (var files = Files.list(Path.of("db-migrations"))) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    d.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                    d.update((byte) 0);
                    d.update(Files.readAllBytes(f));
                }
            }
            return java.util.HexFormat.of().formatHex(d.digest()).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean databaseExists(Connection c, String name) throws SQLException {
        try (var ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, name);
            try (var r = ps.executeQuery()) {
                return r.next();
            }
        }
    }

    private static int sessions(Connection c, String database) throws SQLException {
        try (var ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE datname = ?")) {
            ps.setString(1, database);
            try (var r = ps.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + System.getenv("TEST_PG_PORT") + "/" + database;
    }

    /** A JDBC connection to this server's database (its own, or the test's), for tests that look at rows. */
    public Connection connection() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + System.getenv("TEST_PG_PORT") + "/"
                + (database == null ? "crashlab" : database), "crashlab", "");
    }

    private static Connection admin() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + System.getenv("TEST_PG_PORT") + "/crashlab", "crashlab", "");
    }

    /** Starts (again) on the same database and data folder; returns once the server answers. */
    public void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("already running");
        }
        starts++;
        Path urlFile = dir.resolve("url");
        Files.deleteIfExists(urlFile);
        Path log = dir.resolve("server.log");
        long logStart = Files.exists(log) ? Files.size(log) : 0; // the log is appended to across starts
        gcLog = dir.resolve("gc-" + starts + ".log");
        // a child asked for another test profile (e.g. test,h2: an embedded database, which the PostgreSQL build cannot
        // open) runs the test-mode app, which honours quarkus.test.profile
        Path jar = jvmFlags.stream().anyMatch(f -> f.startsWith("-Dquarkus.test.profile=")) ? null : builtApp();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-Dquarkus.analytics.disabled=true", "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-Xlog:gc:file=" + gcLog));
        if (jar == null) {
            cmd.addAll(List.of("-Dquarkus.test.hang-detection-timeout=24h", // serving "hangs" on purpose
                    "-D" + ServedApp.URL_FILE + "=" + urlFile));
        }
        cmd.addAll(jvmFlags);
        if (jar == null) {
            for (String key : List.of("maven.repo.local", "maven.home", "maven.settings", "basedir",
                    "quarkus-internal-test.serialized-app-model.path")) { // the app model: the child runs in the repository root, not the module
                if (System.getProperty(key) != null) {
                    cmd.add("-D" + key + "=" + System.getProperty(key));
                }
            }
        } else {
            // the test profile's settings, as a @QuarkusTest has them; any free port, read back from the log
            cmd.addAll(List.of("-Dquarkus.profile=test", "-Dquarkus.http.port=0"));
        }
        cmd.add("-D%test.crashlab.data-dir=" + dataDir);
        if (database != null) {
            cmd.add("-D%test.quarkus.datasource.jdbc.url=jdbc:postgresql://127.0.0.1:" + System.getenv("TEST_PG_PORT") + "/" + database);
        }
        settings.forEach((k, v) -> cmd.add("-D%test." + k + "=" + v));
        if (jar == null) {
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ServedAppMain.class.getName()));
        } else {
            cmd.addAll(List.of("-jar", jar.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        long t0 = System.nanoTime();
        process = pb.start();
        long deadline = System.nanoTime() + Duration.ofMinutes(8).toNanos();
        String url;
        while ((url = jar == null ? urlFromFile(urlFile) : urlFromLog(log, logStart)) == null) {
            if (!process.isAlive()) {
                throw new AssertionError("the child server exited (" + process.exitValue() + ") before serving:\n" + logTail());
            }
            if (System.nanoTime() > deadline) {
                killHard();
                throw new AssertionError("the child server did not serve within 8 minutes:\n" + logTail());
            }
            Thread.sleep(200);
        }
        base = URI.create(url);
        System.out.printf(Locale.ROOT, "child server %s: serving after %.1f s, %.1f s CPU (%s)%n", dir.getFileName(),
                (System.nanoTime() - t0) / 1e9, process.info().totalCpuDuration().map(d -> d.toMillis() / 1e3).orElse(-1.0), jar == null ? "test-mode app, built in the child" : "built app, " + jar.getFileName());
    }

    /** The app built for children ({@value #APP_JAR}), or null where it was not built. */
    private static Path builtApp() {
        String jar = System.getProperty(APP_JAR);
        boolean skipped = Boolean.parseBoolean(System.getProperty(APP_JAR + ".skip")); // an older build may be there
        return jar != null && !skipped && Files.isRegularFile(Path.of(jar)) ? Path.of(jar) : null;
    }

    private static String urlFromFile(Path urlFile) throws IOException {
        return Files.exists(urlFile) ? Files.readString(urlFile).strip() : null;
    }

    /** The base URL once this start's part of the log says Quarkus listens (it says so when started), else null. */
    private static String urlFromLog(Path log, long from) throws IOException {
        if (!Files.exists(log)) {
            return null;
        }
        byte[] all = Files.readAllBytes(log);
        var m = LISTENING.matcher(new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from), StandardCharsets.UTF_8));
        return m.find() ? m.group(1).replaceAll("/+$", "") + "/" : null;
    }

    /** {@code kill -9}: the process gets no chance to finish anything. */
    public void killHard() throws InterruptedException {
        if (process != null) {
            reportCpu();
            process.destroyForcibly(); // SIGKILL on Linux
            process.waitFor();
        }
    }

    /** A request to this server as the provisioned admin. */
    public RequestSpecification api() {
        return given().baseUri(base.getScheme() + "://" + base.getHost()).port(base.getPort()).header("Authorization", ADMIN);
    }

    public URI base() {
        return base;
    }

    /** The base URL without a trailing slash, e.g. {@code http://localhost:40123}. */
    public String url() {
        return base.toString().replaceAll("/+$", "");
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** Stops it as an operator would (SIGTERM: shutdown hooks run), {@code kill -9} after 30 s. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            reportCpu();
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                killHard();
            }
        }
    }

    /** Prints the CPU time this life of the child used so far (user + system), for the suite's cost per child start. */
    private void reportCpu() {
        if (process.isAlive()) {
            process.info().totalCpuDuration().ifPresent(cpu -> System.out.printf(Locale.ROOT,
                    "child server %s: start %d used %.1f s CPU%n", dir.getFileName(), starts, cpu.toMillis() / 1e3));
        }
    }

    public long pid() {
        return process.pid();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The name of its own PostgreSQL database, or null when it runs on the test's (for tests that restore backups). */
    public String database() {
        return database;
    }

    /** A connection to the test PostgreSQL's maintenance database (for CREATE/DROP/ALTER DATABASE). */
    public static Connection adminConnection() throws SQLException {
        return admin();
    }

    /** The child's peak resident memory so far (VmHWM), in bytes; -1 where /proc does not say. */
    public long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or gone
        }
        return -1;
    }

    /**
     * The heap in the current run's GC log: the most in use after a young collection (an upper bound of what was
     * live, old garbage included), the most in use before any collection, and the number of full collections.
     */
    public String heapSummary() throws IOException {
        long afterYoung = -1;
        long before = -1;
        int full = 0;
        if (Files.exists(gcLog)) {
            var m = java.util.regex.Pattern.compile("(Pause Young|Pause Full)[^\\n]*?(\\d+)M->(\\d+)M").matcher(Files.readString(gcLog));
            while (m.find()) {
                before = Math.max(before, Long.parseLong(m.group(2)));
                if (m.group(1).equals("Pause Full")) {
                    full++;
                } else {
                    afterYoung = Math.max(afterYoung, Long.parseLong(m.group(3)));
                }
            }
        }
        return "heap after young GCs at most " + afterYoung + " MiB, before GCs at most " + before + " MiB, " + full + " full GCs";
    }

    /** The end of the child's log, for failure messages. */
    public String logTail() {
        try {
            String log = Files.readString(dir.resolve("server.log"), StandardCharsets.UTF_8);
            return log.substring(Math.max(0, log.length() - 6000));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * Stops the server and removes its data folder and its own database (the log stays, under target/child-servers);
     * a server on the test's database is stopped gracefully and the database kept.
     */
    @Override
    public void close() throws Exception {
        if (database == null) {
            stop();
            return;
        }
        killHard();
        if (ownsDatabase) {
            try (Connection c = admin(); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            }
        }
        if (Files.exists(dataDir)) {
            try (var walk = Files.walk(dataDir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
