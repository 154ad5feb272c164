package dev.crashlab.cli;

import dev.crashlab.crashes.CrashIndex;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code index verify}: compares a server's past-crash index (its folder, as last committed) with the database, the
 * same comparison every server makes on its own (counts, and an order-free checksum of bundle ids and entries).
 *
 * <p>NOTE: the one command that reads a database: it needs the server's settings (CRASHLAB_DB_URL, or the embedded
 * database in the data folder, which must then be stopped: H2 lets one process open it). It only reports; the server
 * repairs (at its next periodic check, or {@code POST /api/admin/crash-index/verify}).
 */
@Command(name = "index", description = "The past-crash index of a server.", subcommands = IndexCommand.Verify.class)
final class IndexCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "verify", description = {
            "Compare a server's past-crash index with the database: counts, checksums, and the bundles that differ.",
            "Exit status 0 when they agree, 1 when they differ, 2 when either cannot be read."})
    static final class Verify implements Callable<Integer> {

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;
        private java.io.PrintWriter out;

        @Option(names = "--data-dir", description = "the server's data folder (default: $CRASHLAB_DATA_DIR, else ./data)")
        Path dataDir;

        @Option(names = "--index-dir", description = "the index folder (default: $CRASHLAB_CRASH_INDEX_DIR, else <data-dir>/crash-index)")
        Path indexDir;

        @Option(names = "--db-url", description = "a jdbc:postgresql:// URL (default: $CRASHLAB_DB_URL, else the embedded database in <data-dir>/db)")
        String dbUrl;

        @Override
        public Integer call() {
            out = spec.commandLine().getOut();
            java.io.PrintWriter err = spec.commandLine().getErr();
            Path data = dataDir != null ? dataDir : Path.of(env("CRASHLAB_DATA_DIR", "./data"));
            Path index = indexDir != null ? indexDir
                    : System.getenv("CRASHLAB_CRASH_INDEX_DIR") != null ? Path.of(System.getenv("CRASHLAB_CRASH_INDEX_DIR"))
                    : data.resolve("crash-index");
            String url = dbUrl != null ? dbUrl : System.getenv("CRASHLAB_DB_URL");
            String user;
            String password;
            if (url == null || url.isBlank()) {
                url = "jdbc:h2:file:" + data.toAbsolutePath().normalize().resolve("db").resolve("crashlab") + ";IFEXISTS=TRUE";
                user = "sa";
                password = "";
            } else {
                user = env("CRASHLAB_DB_USER", "crashlab");
                password = env("CRASHLAB_DB_PASSWORD", "");
            }
            Map<Long, Long> database;
            try (Connection c = DriverManager.getConnection(url, user, password)) {
                database = fingerprints(c);
            } catch (SQLException e) {
                err.println("cannot read the database at " + url + ": " + e.getMessage()
                        + " (the embedded database can be read only while its server is stopped)");
                return 2;
            }
            Map<Long, Long> indexed;
            try {
                indexed = CrashIndex.committedFingerprints(index.toAbsolutePath().normalize());
            } catch (java.io.IOException | RuntimeException e) {
                err.println("cannot read the past-crash index at " + index + ": " + e.getMessage());
                return 2;
            }
            CrashIndex.Drift d = CrashIndex.compare(database, indexed);
            out.println(d.summary());
            if (d.clean()) {
                out.println("the index agrees with the database");
                return 0;
            }
            print("missing from the index", d.missing());
            print("in the index, not in the database", d.extra());
            print("changed", d.changed());
            out.println("a running server repairs this at its next check (CRASHLAB_CRASH_INDEX_VERIFY_INTERVAL), or at once"
                    + " with POST /api/admin/crash-index/verify");
            return 1;
        }

        private void print(String what, List<Long> ids) {
            if (!ids.isEmpty()) {
                out.println(what + ": " + ids.subList(0, Math.min(100, ids.size())) + (ids.size() > 100 ? " ..." : ""));
            }
        }

        /** The database's side, as the server computes it: bundles with a stored signature, by id. */
        static Map<Long, Long> fingerprints(Connection c) throws SQLException {
            Map<Long, Long> out = new HashMap<>();
            try (PreparedStatement s = c.prepareStatement("select b.id, d.signature_json, b.uploaded_at,"
                    + " (select count(*) from bundle_resolution r where r.bundle_id = b.id)"
                    + " from bundle b join bundle_diagnosis d on d.bundle_id = b.id")) {
                s.setFetchSize(1000);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        long id = r.getLong(1);
                        long uploaded = r.getObject(3, OffsetDateTime.class).toInstant().toEpochMilli();
                        Long fp = CrashIndex.fingerprint(id, r.getString(2), uploaded, r.getLong(4) > 0);
                        if (fp != null) {
                            out.put(id, fp);
                        }
                    }
                }
            }
            return out;
        }

        private static String env(String name, String otherwise) {
            String v = System.getenv(name);
            return v == null || v.isBlank() ? otherwise : v;
        }
    }
}
