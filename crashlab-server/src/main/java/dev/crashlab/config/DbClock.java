package dev.crashlab.config;

import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * The database's clock: the times that several servers compare (a bundle's upload time, read leases, reproduction-job
 * leases) are taken from it, so that servers whose own clocks differ still agree on when a lease ran out.
 *
 * <p>NOTE: one {@code select current_timestamp} (in the caller's transaction, or a short one of its own); the
 * database's time is the transaction's start on PostgreSQL, which is what a lease decided in that transaction wants.
 */
@ApplicationScoped
public class DbClock {

    @Inject
    EntityManager em;

    /** Now, by the database's clock (microseconds, as both databases store it). */
    public Instant now() {
        Object value = QuarkusTransaction.joiningExisting().call(() -> em.createNativeQuery("select current_timestamp")
                .getSingleResult());
        Instant at = switch (value) {
            case Instant i -> i;
            case OffsetDateTime o -> o.toInstant();
            case ZonedDateTime z -> z.toInstant();
            case java.sql.Timestamp t -> t.toInstant();
            default -> throw new IllegalStateException("the database's current_timestamp came back as " + value.getClass());
        };
        return at.truncatedTo(ChronoUnit.MICROS);
    }
}
