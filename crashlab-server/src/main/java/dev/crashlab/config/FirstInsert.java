package dev.crashlab.config;

import io.quarkus.narayana.jta.QuarkusTransaction;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Makes a row that is looked up by a unique key, where two servers sharing the database (or two requests) may both
 * find it missing and insert it at once: the insert runs in a transaction of its own, and when the unique key refuses
 * it because another transaction committed that key first, the caller reads the winner's row instead. Any other
 * failure is thrown as it came.
 *
 * <p>NOTE: why not {@code insert ... on conflict do nothing}: the H2 build's URL does not put H2 in PostgreSQL mode,
 * and H2 has that clause only there. PostgreSQL makes an insert whose key another transaction holds uncommitted wait
 * for that transaction, then refuses it (SQLState {@code 23505}) if it committed. H2 refuses it at once as a
 * concurrent update ({@code 90131}) without waiting; that refusal is tried again, a few times a second for at most
 * {@link #H2_WAIT} (H2's lock timeout in our URLs), until the other transaction has ended and H2 answers as PostgreSQL
 * does. The caller's own transaction is suspended while the insert runs, so it must hold no lock the insert waits for
 * (a parent row it locked for update, which a foreign key check would wait on).
 */
public final class FirstInsert {

    /** The SQLState of a unique (or primary) key violation, on PostgreSQL and H2. */
    public static final String UNIQUE_VIOLATION = "23505";
    /** H2's SQLState for a key another transaction holds uncommitted ("concurrent update"). */
    public static final String H2_UNCOMMITTED_DUPLICATE = "90131";
    /** How long an insert waits, on H2, for another transaction's uncommitted row with its key to commit or go. */
    static final Duration H2_WAIT = Duration.ofSeconds(10);

    private FirstInsert() {}

    /**
     * Runs {@code insert} in a new transaction; it must write (flush) its row before it returns.
     *
     * @return true when it committed, false when a unique key refused it: a row with its key (or another of its unique
     *         values) was committed first, by another server or request
     */
    public static boolean ifAbsent(Runnable insert) {
        long until = System.nanoTime() + H2_WAIT.toNanos();
        while (true) {
            try {
                QuarkusTransaction.requiringNew().run(insert);
                return true;
            } catch (RuntimeException e) {
                if (hasState(e, UNIQUE_VIOLATION)) {
                    return false;
                }
                if (!hasState(e, H2_UNCOMMITTED_DUPLICATE) || System.nanoTime() > until) {
                    throw e;
                }
                awaitOtherTransaction();
            }
        }
    }

    // the other insert's transaction is short (it only makes this row); H2 gives no way to wait on it
    private static void awaitOtherTransaction() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while another transaction held the same key", e);
        }
    }

    /**
     * Whether {@code e}, or an exception it wraps, is the database refusing a row on a unique key: committed by
     * another transaction ({@link #UNIQUE_VIOLATION}), or on H2 held uncommitted by one ({@link #H2_UNCOMMITTED_DUPLICATE}).
     */
    public static boolean isDuplicate(Throwable e) {
        return hasState(e, UNIQUE_VIOLATION) || hasState(e, H2_UNCOMMITTED_DUPLICATE);
    }

    private static boolean hasState(Throwable e, String state) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // a batch's failure carries its statement's as the next exception
            for (SQLException s = t instanceof SQLException q ? q : null; s != null; s = s.getNextException()) {
                if (state.equals(s.getSQLState())) {
                    return true;
                }
            }
        }
        return false;
    }
}
