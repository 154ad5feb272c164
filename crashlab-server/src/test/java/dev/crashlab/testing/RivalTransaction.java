package dev.crashlab.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Another server's transaction, on a connection of its own: it writes rows (the same key the code under test is about
 * to make) and keeps them uncommitted until the code under test waits on its locks, then commits. That is the losing
 * side of two servers that both found a row missing, made deterministic: the code under test has already looked and
 * found nothing, and meets the rival's committed row only when it writes.
 *
 * <p>NOTE: "waits on its locks" is asked of the database (PostgreSQL: {@code pg_blocking_pids}; H2:
 * {@code INFORMATION_SCHEMA.SESSIONS.BLOCKER_ID}) from a third connection, naming the rival's session, so other
 * transactions of the test application waiting on other locks do not count.
 */
public final class RivalTransaction implements AutoCloseable {

    private final DataSource data;
    private final Connection rival;
    private final boolean postgres;
    private final long session;
    private boolean committed;

    private RivalTransaction(DataSource data) throws SQLException {
        this.data = data;
        this.rival = data.getConnection();
        rival.setAutoCommit(false);
        postgres = rival.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT).contains("postgres");
        try (PreparedStatement ps = rival.prepareStatement(postgres ? "select pg_backend_pid()" : "select session_id()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            session = rs.getLong(1);
        }
    }

    /** Opens the rival's transaction on a connection of {@code data}'s. */
    public static RivalTransaction open(DataSource data) throws SQLException {
        return new RivalTransaction(data);
    }

    /** Runs one statement in the rival's transaction (uncommitted); {@code ?} parameters in order. */
    public RivalTransaction run(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = rival.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i] instanceof java.time.Instant at ? java.sql.Timestamp.from(at) : params[i]);
            }
            ps.execute();
        }
        return this;
    }

    /**
     * Waits until {@code caller} waits on the rival, then commits; gives up (and commits all the same) when {@code call}
     * ends first or {@code patience} passes. Waiting is another session waiting on the rival's locks, or (H2, which
     * waits out an uncommitted duplicate key by trying the statement again, which {@code BLOCKER_ID} does not show)
     * {@code caller} seen inside an insert statement three looks in a row.
     *
     * @return whether the caller was seen waiting on the rival
     */
    public boolean commitOnceWaitedOn(Future<?> call, Thread caller, Duration patience) throws SQLException, InterruptedException {
        long until = System.nanoTime() + patience.toNanos();
        boolean waited = false;
        try (Connection look = data.getConnection();
                PreparedStatement ps = look.prepareStatement(postgres
                        ? "select count(*) from pg_locks l where not l.granted and ? = any(pg_blocking_pids(l.pid))"
                        : "select count(*) from information_schema.sessions where blocker_id = ?")) {
            look.setAutoCommit(true);
            ps.setInt(1, (int) session);
            int inH2Insert = 0;
            while (!call.isDone() && System.nanoTime() < until) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    inH2Insert = insertingInH2(caller) ? inH2Insert + 1 : 0;
                    // an insert in an in-memory database takes microseconds: one seen in three looks 20 ms apart is waiting
                    if (rs.getLong(1) > 0 || inH2Insert >= 3) {
                        waited = true;
                        break;
                    }
                }
                Thread.sleep(20);
            }
        }
        rival.commit();
        committed = true;
        return waited;
    }

    private static boolean insertingInH2(Thread caller) {
        for (StackTraceElement frame : caller.getStackTrace()) {
            if (frame.getClassName().equals("org.h2.command.dml.Insert")
                    || (frame.getClassName().equals("org.h2.command.Command") && frame.getMethodName().equals("executeUpdate"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code call} on a thread of its own, commits once it waits on the rival (or after 30 s), and returns what
     * it returned or throws what it threw.
     *
     * @throws AssertionError when the call ended without ever waiting on the rival: it never met the race
     */
    public <T> T race(Callable<T> call) throws Exception {
        Thread[] caller = new Thread[1];
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> caller[0] = new Thread(r, "rival-race-call"));
        try {
            Future<T> f = thread.submit(call);
            boolean waited = commitOnceWaitedOn(f, caller[0], Duration.ofSeconds(30));
            T out;
            try {
                out = f.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception c ? c : e;
            }
            if (!waited) {
                throw new AssertionError("the call ended (or ran 30 s) without waiting on the rival's rows: it never met the race");
            }
            return out;
        } finally {
            thread.shutdownNow();
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            if (!committed) {
                rival.rollback();
            }
        } finally {
            rival.close();
        }
    }
}
