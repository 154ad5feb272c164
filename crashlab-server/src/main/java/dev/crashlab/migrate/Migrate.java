package dev.crashlab.migrate;

import dev.crashlab.bundle.BlobStore;
import dev.crashlab.bundle.S3BlobStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;

/**
 * {@code bin/crashlab migrate}: copies a deployment on the embedded database (H2 in {@code <data-dir>/db}, blobs in
 * {@code <data-dir>/blobs}) into PostgreSQL and an S3 bucket, keeping its deployment identity (V47), so that a
 * server started on the copy finds its database and its bucket's marker in agreement.
 *
 * <p>NOTE: plain JDBC over both databases and the server's own {@link S3BlobStore}; no Quarkus is started. The
 * source is opened read-only (H2 refuses it while a server holds the file, and a server cannot start while this
 * holds it) and never changed. Resumable: the target's identity is set to the source's before anything is copied,
 * so a rerun recognises its own partial copy; blobs are copied unless present, and every blob is read back and
 * hashed on every run; rows are inserted unless their primary key is present, table by table in foreign-key order,
 * committed in batches; identity sequences are then set past the copied maximum. Runs from the server's class path
 * (the migrations in {@code db/migration} define the target schema). Exit codes: 0 done, 1 a blob did not verify or
 * the copy failed, 2 bad input (settings, source folder, target unreachable or refusing), 3 the target belongs to
 * another deployment or holds other data.
 */
public final class Migrate {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int BAD_INPUT = 2;
    static final int REFUSED = 3;

    /** Tables the copy leaves out: the schema's own history, the identity (set first), and per-server state. */
    static final Set<String> SKIPPED = Set.of("flyway_schema_history", "deployment", "crash_index_origin", "blob_claim");

    /** Tables whose rows, in a target that is not this source's partial copy, mean the target is in use. */
    static final List<String> USER_DATA = List.of("bundle", "app_user", "api_token", "audit_event", "repro_job");

    static final String USAGE = """
            Usage: crashlab migrate [--from DIR] [--to-db URL] [--db-user NAME] [--to-blobs s3://BUCKET/PREFIX]
                                    [--s3-endpoint URL]
            Copies an embedded-database deployment (the data folder of `bin/crashlab serve` without CRASHLAB_DB_URL)
            into PostgreSQL and its blobs into an S3 bucket, keeping the deployment's identity. Stop the server first.
            Resumable: run it again after an interruption; it ends with the same result and never duplicates rows.
            Every blob is read back from the bucket and checked against its SHA-256; the run fails while one differs.

              --from DIR          the data folder to copy (default: CRASHLAB_DATA_DIR, else ./data)
              --to-db URL         the PostgreSQL database, jdbc:postgresql://host:port/db (default: CRASHLAB_DB_URL);
                                  it must be empty (no CrashLab tables, or no bundles and no users) or hold an
                                  earlier, interrupted run of this same source
              --db-user NAME      its user (default: CRASHLAB_DB_USER, else crashlab); the password is read from
                                  CRASHLAB_DB_PASSWORD
              --to-blobs ADDRESS  the bucket and prefix, s3://bucket/prefix (default: CRASHLAB_BLOB_STORE); the
                                  bucket must exist. Credentials and options as for the server:
                                  CRASHLAB_S3_ACCESS_KEY_ID, CRASHLAB_S3_SECRET_ACCESS_KEY, CRASHLAB_S3_REGION,
                                  CRASHLAB_S3_PATH_STYLE
              --s3-endpoint URL   the object store's address (default: CRASHLAB_S3_ENDPOINT; unset: AWS)
              -h, --help          this text

            Exit status: 0 done, 1 a blob did not verify or the copy failed, 2 bad input or a target that cannot be
            reached, 3 the target database or bucket belongs to another deployment.
            """;

    static {
        // the server's jars bring JBoss LogManager: name it before anything logs (else it warns on stderr); this runs
        // before the logger below is made
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", "org.jboss.logmanager.LogManager");
        }
    }

    private static final java.util.logging.Logger FLYWAY_LOG = java.util.logging.Logger.getLogger("org.flywaydb");

    private final PrintStream out;
    private final Function<String, String> env;
    private final int batchRows = Integer.getInteger("crashlab.migrate.batch-rows", 1000);
    /** Tests: after the first committed batch of this table, say so and wait to be killed (the kill-and-resume test). */
    private final String pauseInTable = System.getProperty("crashlab.migrate.test-pause-in-table");
    private long lastProgress;

    /** A refusal with words for the operator, and the exit status it ends with. */
    static final class Refusal extends Exception {
        final int status;

        Refusal(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    Migrate(PrintStream out, Function<String, String> env) {
        this.out = out;
        this.env = env;
    }

    public static void main(String[] args) {
        // Flyway's own lines (each migration, "outOfOrder mode is active") are noise here: the progress lines say it
        FLYWAY_LOG.setLevel(java.util.logging.Level.SEVERE);
        System.exit(new Migrate(System.out, System::getenv).run(args, System.err));
    }

    /** Runs the migration; returns the exit status. */
    int run(String[] args, PrintStream err) {
        try {
            Settings s = settings(args);
            if (s == null) {
                out.print(USAGE);
                return OK;
            }
            migrate(s);
            return OK;
        } catch (Refusal r) {
            err.println("crashlab migrate: " + r.getMessage());
            return r.status;
        }
    }

    record Settings(Path from, String dbUrl, String dbUser, String dbPassword, S3BlobStore.Location blobs, URI endpoint,
            String region, boolean pathStyle, String keyId, String secret) {}

    private String setting(String name) {
        String v = env.apply(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** The settings from the options and the environment; null for --help. */
    Settings settings(String[] args) throws Refusal {
        Map<String, String> opts = new LinkedHashMap<>();
        Set<String> known = Set.of("--from", "--to-db", "--db-user", "--to-blobs", "--s3-endpoint");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                return null;
            }
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (!known.contains(name)) {
                throw new Refusal(BAD_INPUT, "unknown option '" + a + "' (see bin/crashlab migrate --help)");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new Refusal(BAD_INPUT, "option " + name + " needs a value (see bin/crashlab migrate --help)");
                }
                value = args[++i];
            }
            opts.put(name, value);
        }
        String from = opts.getOrDefault("--from", setting("CRASHLAB_DATA_DIR") == null ? "./data" : setting("CRASHLAB_DATA_DIR"));
        String url = opts.getOrDefault("--to-db", setting("CRASHLAB_DB_URL"));
        if (url == null) {
            throw new Refusal(BAD_INPUT, "no target database: give --to-db jdbc:postgresql://host:port/db (or set CRASHLAB_DB_URL)");
        }
        if (!url.startsWith("jdbc:postgresql://")) {
            throw new Refusal(BAD_INPUT, "the target database URL '" + url + "' is not a PostgreSQL JDBC URL: write it as"
                    + " jdbc:postgresql://host:port/database");
        }
        String user = opts.getOrDefault("--db-user", setting("CRASHLAB_DB_USER") == null ? "crashlab" : setting("CRASHLAB_DB_USER"));
        String password = env.apply("CRASHLAB_DB_PASSWORD") == null ? "" : env.apply("CRASHLAB_DB_PASSWORD");
        String blobs = opts.getOrDefault("--to-blobs", setting("CRASHLAB_BLOB_STORE"));
        if (blobs == null || blobs.equals("local")) {
            throw new Refusal(BAD_INPUT, "no target bucket: give --to-blobs s3://bucket/prefix (or set CRASHLAB_BLOB_STORE)");
        }
        S3BlobStore.Location location;
        try {
            location = S3BlobStore.parse(blobs);
        } catch (IllegalArgumentException e) {
            throw new Refusal(BAD_INPUT, "the target bucket '" + blobs + "': " + e.getMessage());
        }
        String endpoint = opts.getOrDefault("--s3-endpoint", setting("CRASHLAB_S3_ENDPOINT"));
        URI endpointUri = null;
        if (endpoint != null) {
            try {
                endpointUri = URI.create(endpoint);
            } catch (IllegalArgumentException e) {
                endpointUri = null;
            }
            if (endpointUri == null || endpointUri.getHost() == null
                    || !(endpointUri.getScheme().equals("http") || endpointUri.getScheme().equals("https"))) {
                throw new Refusal(BAD_INPUT, "the object store address '" + endpoint + "' is not an http(s)://host:port URL");
            }
        }
        String keyId = setting("CRASHLAB_S3_ACCESS_KEY_ID");
        String secret = setting("CRASHLAB_S3_SECRET_ACCESS_KEY");
        if ((keyId == null) != (secret == null)) {
            throw new Refusal(BAD_INPUT, "CRASHLAB_S3_ACCESS_KEY_ID and CRASHLAB_S3_SECRET_ACCESS_KEY go together: set both or neither");
        }
        String region = setting("CRASHLAB_S3_REGION") == null ? "us-east-1" : setting("CRASHLAB_S3_REGION");
        boolean pathStyle = "true".equalsIgnoreCase(setting("CRASHLAB_S3_PATH_STYLE"));
        return new Settings(Path.of(from).toAbsolutePath().normalize(), url, user, password, location, endpointUri,
                region, pathStyle, keyId, secret);
    }

    // ---------------------------------------------------------------------------------------------------------------

    void migrate(Settings s) throws Refusal {
        Path spool = null;
        try (Connection source = openSource(s.from());
                Connection target = openTarget(s)) {
            String identity = sourceIdentity(source, s.from());
            spool = Files.createTempDirectory("crashlab-migrate-");
            try (S3BlobStore bucket = new S3BlobStore(new S3BlobStore.Settings(s.blobs(), s.endpoint(), s.region(), s.keyId(),
                    s.secret(), s.pathStyle(), S3BlobStore.MIN_PART * 3, spool))) {
                checkBucket(bucket, identity);
                prepareTarget(target, s, identity);
                if (bucket.readMarker() == null) {
                    bucket.writeMarker(identity);
                    out.println("marked " + s.blobs() + " as deployment " + identity);
                }
                copyBlobs(source, bucket, s.from().resolve("blobs"));
            }
            long rows = copyRows(source, target);
            resetSequences(target);
            verifyCounts(source, target);
            out.printf(Locale.ROOT, "done: deployment %s is in %s (%,d rows) and %s; start the servers with"
                    + " CRASHLAB_DB_URL=%s and CRASHLAB_BLOB_STORE=%s%n", identity, s.dbUrl(), rows, s.blobs(), s.dbUrl(),
                    s.blobs());
        } catch (SQLException e) {
            throw new Refusal(FAILED, "the copy failed: " + e.getMessage() + " (SQL state " + e.getSQLState()
                    + "); nothing is lost: fix the cause and run the same command again to continue");
        } catch (IOException e) {
            throw new Refusal(FAILED, "the copy failed: " + e.getMessage()
                    + "; fix the cause and run the same command again to continue");
        } finally {
            if (spool != null) {
                try (var walk = Files.walk(spool)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException ignored) {
                    // a temporary folder
                }
            }
        }
    }

    static String h2Url(Path dataDir, boolean mustExist) {
        return "jdbc:h2:file:" + dataDir.resolve("db").resolve("crashlab") + ";ACCESS_MODE_DATA=r"
                + (mustExist ? ";IFEXISTS=TRUE" : "");
    }

    private Connection openSource(Path dir) throws Refusal {
        if (!Files.isDirectory(dir)) {
            throw new Refusal(BAD_INPUT, "the source folder " + dir + " does not exist (give the server's data folder with --from)");
        }
        Path db = dir.resolve("db").resolve("crashlab.mv.db");
        if (!Files.isRegularFile(db)) {
            throw new Refusal(BAD_INPUT, dir + " is not a CrashLab data folder: it has no db/crashlab.mv.db (the embedded"
                    + " database that bin/crashlab serve keeps in CRASHLAB_DATA_DIR)");
        }
        try {
            Connection c = DriverManager.getConnection(h2Url(dir, true), "sa", "");
            c.setAutoCommit(false);
            return c;
        } catch (SQLException e) {
            if (e.getErrorCode() == 90020 || String.valueOf(e.getMessage()).contains("already in use")) {
                throw new Refusal(BAD_INPUT, "the database in " + dir + " is in use: a CrashLab server (or another"
                        + " program) has it open. Stop the server, then run migrate again");
            }
            if (e.getErrorCode() == 28000) {
                throw new Refusal(BAD_INPUT, dir + " holds an H2 database that is not CrashLab's (its user is not sa)");
            }
            throw new Refusal(BAD_INPUT, "cannot open the database in " + dir + ": " + e.getMessage());
        }
    }

    private String sourceIdentity(Connection source, Path dir) throws Refusal, SQLException {
        String identity;
        try (Statement st = source.createStatement();
                ResultSet rs = st.executeQuery("select identity from deployment where id = 1")) {
            identity = rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new Refusal(BAD_INPUT, dir + " is not a CrashLab data folder: its database has no deployment table"
                    + " (a CrashLab server older than this one, or another program's database). Start this version's"
                    + " server on it once, stop it, and run migrate again");
        }
        Flyway flyway = flyway(h2Url(dir, true), "sa", "", "JSON");
        MigrationInfo[] pending = flyway.info().pending();
        if (identity == null || pending.length > 0) {
            throw new Refusal(BAD_INPUT, "the database in " + dir + " is from an older CrashLab ("
                    + (pending.length > 0 ? pending.length + " schema migration(s) not applied, the first V" + pending[0].getVersion()
                            : "no deployment identity yet")
                    + "): start this version's server on it once (bin/crashlab serve), stop it, and run migrate again");
        }
        source.rollback();
        return identity;
    }

    static Flyway flyway(String url, String user, String password, String jsonType) {
        return Flyway.configure(Migrate.class.getClassLoader()).dataSource(url, user, password)
                .locations("classpath:db/migration").placeholders(Map.of("json_type", jsonType)).outOfOrder(true)
                .load();
    }

    private Connection openTarget(Settings s) throws Refusal {
        try {
            Connection c = DriverManager.getConnection(s.dbUrl(), s.dbUser(), s.dbPassword());
            c.setAutoCommit(false);
            return c;
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            String what = switch (state) {
                case "28P01", "28000" -> "the database refused the user '" + s.dbUser() + "' (wrong password or no such"
                        + " role; the password is read from CRASHLAB_DB_PASSWORD)";
                case "3D000" -> "the database named in the URL does not exist (create it first: create database ... owner "
                        + s.dbUser() + ")";
                case "08001", "08004", "08006" -> "the database server does not answer there (" + e.getMessage() + ")";
                default -> e.getMessage();
            };
            throw new Refusal(BAD_INPUT, "cannot connect to " + s.dbUrl() + ": " + what);
        }
    }

    private void checkBucket(S3BlobStore bucket, String identity) throws Refusal {
        String marker;
        try {
            bucket.checkWritable();
            marker = bucket.readMarker();
        } catch (IOException | RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            String hint = m.contains("NoSuchBucket") ? " (the bucket does not exist: create it first, CrashLab never does)"
                    : m.contains("403") || m.contains("AccessDenied") || m.contains("InvalidAccessKeyId") || m.contains("SignatureDoesNotMatch")
                            ? " (the store refused the credentials: check CRASHLAB_S3_ACCESS_KEY_ID and CRASHLAB_S3_SECRET_ACCESS_KEY)"
                            : "";
            throw new Refusal(BAD_INPUT, "cannot use the bucket " + bucket.location() + ": " + m + hint);
        }
        if (marker != null && !marker.equals(identity)) {
            throw new Refusal(REFUSED, "the bucket prefix " + bucket.location() + " belongs to deployment " + marker
                    + " (its marker s3://" + bucket.location().bucket() + "/" + bucket.markerKey() + "), not to the source's"
                    + " deployment " + identity + ". Give the migrated deployment a bucket or prefix of its own");
        }
    }

    private static boolean hasTable(Connection c, String table) throws SQLException {
        try (ResultSet rs = c.getMetaData().getTables(null, null, table, new String[] {"TABLE"})) {
            return rs.next();
        }
    }

    private static long count(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Checks that the target is empty or this source's partial copy, brings its schema up and claims its identity. */
    private void prepareTarget(Connection target, Settings s, String identity) throws Refusal, SQLException {
        if (hasTable(target, "deployment")) {
            String current;
            try (Statement st = target.createStatement();
                    ResultSet rs = st.executeQuery("select identity from deployment where id = 1")) {
                current = rs.next() ? rs.getString(1) : null;
            }
            if (!identity.equals(current)) {
                List<String> used = new ArrayList<>();
                for (String t : USER_DATA) {
                    if (hasTable(target, t) && count(target, t) > 0) {
                        used.add(t);
                    }
                }
                target.rollback();
                if (!used.isEmpty()) {
                    throw new Refusal(REFUSED, "the target database " + s.dbUrl() + " already holds data ("
                            + String.join(", ", used) + ") of deployment " + current + ", not an earlier run of this"
                            + " source (deployment " + identity + "). Migrate into an empty database");
                }
            } else {
                out.println("continuing an earlier run into " + s.dbUrl() + " (deployment " + identity + ")");
            }
            target.rollback();
        } else if (hasTable(target, "flyway_schema_history")) {
            target.rollback();
            throw new Refusal(REFUSED, "the target database " + s.dbUrl() + " holds another schema (a flyway_schema_history"
                    + " table but no CrashLab deployment table). Migrate into an empty database");
        }
        target.rollback();
        try {
            var result = flyway(s.dbUrl(), s.dbUser(), s.dbPassword(), "JSONB").migrate();
            if (result.migrationsExecuted > 0) {
                out.println("created the schema in " + s.dbUrl() + " (" + result.migrationsExecuted + " migrations)");
            }
        } catch (FlywayException e) {
            throw new Refusal(REFUSED, "cannot bring the target database's schema to this version: " + e.getMessage());
        }
        try (PreparedStatement ps = target.prepareStatement("update deployment set identity = ? where id = 1")) {
            ps.setString(1, identity);
            ps.executeUpdate();
        }
        target.commit();
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Copies every blob an artifact names, unless present, and reads each one back from the bucket to check its hash. */
    private void copyBlobs(Connection source, S3BlobStore bucket, Path root) throws Refusal, SQLException, IOException {
        Map<String, Long> blobs = new TreeMap<>();
        try (Statement st = source.createStatement();
                ResultSet rs = st.executeQuery("select sha256, max(size_bytes) from artifact group by sha256")) {
            while (rs.next()) {
                blobs.put(rs.getString(1), rs.getLong(2));
            }
        }
        source.rollback();
        long total = blobs.values().stream().mapToLong(Long::longValue).sum();
        out.printf(Locale.ROOT, "blobs: %,d to copy and verify (%s) from %s to %s%n", blobs.size(), bytes(total), root,
                bucket.location());
        List<String> problems = new ArrayList<>();
        int n = 0;
        int verified = 0;
        int uploaded = 0;
        long done = 0;
        lastProgress = System.nanoTime();
        for (var e : blobs.entrySet()) {
            String sha = e.getKey();
            n++;
            Path file = root.resolve(sha.substring(0, 2)).resolve(sha.substring(2, 4)).resolve(sha);
            if (!Files.isRegularFile(file)) {
                problems.add("blob " + sha + " is missing from the source (" + file + ")");
                continue;
            }
            String local = hash(Files.newInputStream(file));
            if (!local.equals(sha)) {
                problems.add("the source file " + file + " does not hold blob " + sha + " (its SHA-256 is " + local
                        + "): it was changed or damaged; restore it from a backup");
                continue;
            }
            if (!bucket.contains(sha)) {
                bucket.putCopy(file, sha);
                uploaded++;
            }
            String remote;
            try {
                remote = hash(bucket.open(sha));
            } catch (NoSuchFileException gone) {
                remote = "(absent)";
            }
            if (!remote.equals(sha)) {
                problems.add("the bucket's copy of blob " + sha + " differs from the source (its SHA-256 is " + remote
                        + "): delete the object " + bucket.location() + sha.substring(0, 2) + "/" + sha.substring(2, 4) + "/"
                        + sha + " and run migrate again to copy it anew");
                continue;
            }
            done += e.getValue();
            verified++;
            if (n < blobs.size() && System.nanoTime() - lastProgress > 2_000_000_000L) {
                out.printf(Locale.ROOT, "blobs: %,d of %,d verified (%s of %s; %,d uploaded this run)%n", verified,
                        blobs.size(), bytes(done), bytes(total), uploaded);
                lastProgress = System.nanoTime();
            }
        }
        out.printf(Locale.ROOT, "blobs: %,d of %,d verified (%s of %s; %,d uploaded this run)%n", verified, blobs.size(),
                bytes(done), bytes(total), uploaded);
        if (!problems.isEmpty()) {
            StringBuilder m = new StringBuilder(problems.size() + " blob(s) did not verify, so the migration stops before"
                    + " copying any row (the target is not usable yet):");
            problems.forEach(p -> m.append("\n  ").append(p));
            throw new Refusal(FAILED, m.toString());
        }
    }

    private static String hash(InputStream in) throws IOException {
        MessageDigest digest = BlobStore.sha256();
        try (InputStream d = new DigestInputStream(in, digest)) {
            d.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        if (n < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        }
        if (n < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.1f GiB", n / (1024.0 * 1024 * 1024));
    }

    // ---------------------------------------------------------------------------------------------------------------

    record Column(String name, String type) {}

    record Table(String name, List<Column> columns, List<String> key, String identityColumn) {}

    /** The target's tables (those the copy covers) in foreign-key order, parents first. */
    static List<Table> tables(Connection target) throws SQLException {
        Map<String, Table> all = new TreeMap<>();
        Map<String, Set<String>> parents = new TreeMap<>();
        var meta = target.getMetaData();
        try (ResultSet rs = meta.getTables(null, "public", "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String t = rs.getString("TABLE_NAME");
                if (!SKIPPED.contains(t)) {
                    all.put(t, null);
                }
            }
        }
        for (String t : List.copyOf(all.keySet())) {
            List<Column> cols = new ArrayList<>();
            String identity = null;
            try (PreparedStatement ps = target.prepareStatement("select column_name, data_type, is_identity from"
                    + " information_schema.columns where table_schema = 'public' and table_name = ? order by ordinal_position")) {
                ps.setString(1, t);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        cols.add(new Column(rs.getString(1), rs.getString(2)));
                        if ("YES".equals(rs.getString(3))) {
                            identity = rs.getString(1);
                        }
                    }
                }
            }
            List<String> key = new ArrayList<>();
            try (ResultSet rs = meta.getPrimaryKeys(null, "public", t)) {
                Map<Integer, String> byPos = new TreeMap<>();
                while (rs.next()) {
                    byPos.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
                }
                key.addAll(byPos.values());
            }
            if (key.isEmpty()) {
                throw new SQLException("table " + t + " has no primary key, so it cannot be copied without duplicates");
            }
            all.put(t, new Table(t, cols, key, identity));
            Set<String> ps = new LinkedHashSet<>();
            try (ResultSet rs = meta.getImportedKeys(null, "public", t)) {
                while (rs.next()) {
                    String parent = rs.getString("PKTABLE_NAME");
                    if (!parent.equals(t) && all.containsKey(parent)) {
                        ps.add(parent);
                    }
                }
            }
            parents.put(t, ps);
        }
        target.rollback();
        List<Table> order = new ArrayList<>();
        Set<String> placed = new LinkedHashSet<>();
        while (placed.size() < all.size()) {
            boolean progress = false;
            for (String t : all.keySet()) {
                if (!placed.contains(t) && placed.containsAll(parents.get(t))) {
                    placed.add(t);
                    order.add(all.get(t));
                    progress = true;
                }
            }
            if (!progress) {
                throw new SQLException("the tables' foreign keys form a cycle; cannot order the copy");
            }
        }
        return order;
    }

    private static String h2Name(String column) {
        return "\"" + column.toUpperCase(Locale.ROOT) + "\"";
    }

    private static boolean json(Column c) {
        return c.type().equals("jsonb") || c.type().equals("json");
    }

    private long copyRows(Connection source, Connection target) throws SQLException {
        long all = 0;
        for (Table t : tables(target)) {
            long have = count(source, h2Name(t.name()));
            long already = count(target, "\"" + t.name() + "\"");
            target.commit();
            if (already == have) {
                out.printf(Locale.ROOT, "rows: %s: %,d of %,d (already there)%n", t.name(), have, have);
                all += have;
                continue;
            }
            StringBuilder select = new StringBuilder("select ");
            StringBuilder insert = new StringBuilder("insert into \"" + t.name() + "\" (");
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < t.columns().size(); i++) {
                Column c = t.columns().get(i);
                String sep = i == 0 ? "" : ", ";
                select.append(sep).append(h2Name(c.name()));
                insert.append(sep).append('"').append(c.name()).append('"');
                values.append(sep).append(json(c) ? "cast(? as " + c.type() + ")" : "?");
            }
            select.append(" from ").append(h2Name(t.name())).append(" order by ")
                    .append(String.join(", ", t.key().stream().map(Migrate::h2Name).toList()));
            insert.append(") values (").append(values).append(") on conflict do nothing");
            long read = 0;
            long inserted = 0;
            int pending = 0;
            lastProgress = System.nanoTime();
            try (Statement st = source.createStatement();
                    PreparedStatement ps = target.prepareStatement(insert.toString())) {
                st.setFetchSize(batchRows);
                try (ResultSet rs = st.executeQuery(select.toString())) {
                    while (rs.next()) {
                        for (int i = 0; i < t.columns().size(); i++) {
                            Column c = t.columns().get(i);
                            Object v;
                            if (json(c)) {
                                byte[] b = rs.getBytes(i + 1);
                                v = b == null ? null : new String(b, StandardCharsets.UTF_8);
                            } else if (c.type().startsWith("timestamp")) {
                                v = rs.getObject(i + 1, OffsetDateTime.class);
                            } else {
                                v = rs.getObject(i + 1);
                            }
                            ps.setObject(i + 1, v);
                        }
                        ps.addBatch();
                        read++;
                        if (++pending == batchRows) {
                            inserted += sum(ps.executeBatch());
                            target.commit();
                            committed(t.name(), read);
                            pending = 0;
                            if (System.nanoTime() - lastProgress > 2_000_000_000L) {
                                out.printf(Locale.ROOT, "rows: %s: %,d of %,d%n", t.name(), read, have);
                                lastProgress = System.nanoTime();
                            }
                        }
                    }
                }
                if (pending > 0) {
                    inserted += sum(ps.executeBatch());
                    target.commit();
                    committed(t.name(), read);
                }
            }
            source.rollback();
            out.printf(Locale.ROOT, "rows: %s: %,d of %,d (%,d new, %,d there from an earlier run)%n", t.name(), read, have,
                    inserted, read - inserted);
            all += read;
        }
        return all;
    }

    private void committed(String table, long rows) {
        if (table.equals(pauseInTable)) {
            out.println("test pause: " + rows + " rows of " + table + " committed");
            out.flush();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long sum(int[] counts) {
        long n = 0;
        for (int c : counts) {
            n += c > 0 ? c : 0;
        }
        return n;
    }

    /** Sets each identity column's sequence past the copied maximum, so new rows get fresh ids. */
    private void resetSequences(Connection target) throws SQLException {
        for (Table t : tables(target)) {
            if (t.identityColumn() == null) {
                continue;
            }
            String col = t.identityColumn();
            try (Statement st = target.createStatement();
                    ResultSet rs = st.executeQuery("select setval(pg_get_serial_sequence('public.\"" + t.name() + "\"', '"
                            + col + "'), coalesce((select max(\"" + col + "\") from \"" + t.name() + "\"), 0) + 1, false)")) {
                rs.next();
            }
        }
        target.commit();
        out.println("sequences: set past the copied ids");
    }

    private void verifyCounts(Connection source, Connection target) throws SQLException, Refusal {
        List<String> differ = new ArrayList<>();
        for (Table t : tables(target)) {
            long a = count(source, h2Name(t.name()));
            long b = count(target, "\"" + t.name() + "\"");
            if (a != b) {
                differ.add(t.name() + " (source " + a + ", target " + b + ")");
            }
        }
        source.rollback();
        target.rollback();
        if (!differ.isEmpty()) {
            throw new Refusal(FAILED, "the copy does not match the source: " + String.join(", ", differ));
        }
    }
}
