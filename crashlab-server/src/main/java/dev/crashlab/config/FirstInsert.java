package dev.crashlab.config;

import io.quarkus.narayana.jta.QuarkusTransaction;
import java.sql.SQLException;

/**
 * Makes a row that is looked up by a unique key, where two servers sharing the database (or two requests) may both
 * find it missing and insert it at once: the insert runs in a transaction of its own, and when the unique key refuses
 * it because another transaction committed that key first, the caller reads the winner's row instead. Any other
 * failure is thrown as it came.
 *
 * <p>NOTE: why not {@code insert ... on conflict do nothing}: the H2 build's URL does not put H2 in PostgreSQL mode,
 * and H2 has that clause only there. Both databases make an insert whose key another transaction holds uncommitted
 * wait for that transaction (H2 by trying the statement again until its lock timeout) and then refuse it with SQLState
 * {@code 23505} if it committed. The caller's own transaction is suspended while the insert runs, so it must hold no
 * lock the insert waits for (a parent row it locked for update, which a foreign key check would wait on).
 */
public final class FirstInsert {

    /** The SQLState of a unique (or primary) key violation, on PostgreSQL and H2. */
    public static final String UNIQUE_VIOLATION = "23505";

    private FirstInsert() {}

    /**
     * Runs {@code insert} in a new transaction; it must write (flush) its row before it returns.
     *
     * @return true when it committed, false when a unique key refused it: a row with its key (or another of its unique
     *         values) was committed first, by another server or request
     */
    public static boolean ifAbsent(Runnable insert) {
        try {
            QuarkusTransaction.requiringNew().run(insert);
            return true;
        } catch (RuntimeException e) {
            if (isDuplicate(e)) {
                return false;
            }
            throw e;
        }
    }

    /** Whether {@code e}, or an exception it wraps, is the database refusing a row on a unique key. */
    public static boolean isDuplicate(Throwable e) {
        return hasState(e, UNIQUE_VIOLATION);
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
