package dev.crashlab.bundle;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One change to the past-crash index (V31): a bundle's signature stored ({@link #UPSERT}) or the bundle deleted
 * ({@link #DELETE}). Written in the same transaction as the change itself, so that every server sharing the database
 * finds it and brings its own index up to date.
 *
 * <p>NOTE: here, in the lowest package, because deleting a bundle writes one too.
 */
@Entity
@Table(name = "crash_change")
public class CrashChange extends PanacheEntityBase {

    public static final String UPSERT = "upsert";
    public static final String DELETE = "delete";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "bundle_id", nullable = false)
    public long bundleId;

    @Column(nullable = false, length = 8)
    public String kind;

    @Column(name = "changed_at", nullable = false)
    public Instant changedAt;

    /** Records a change in the current transaction. */
    public static void record(long bundleId, String kind) {
        CrashChange c = new CrashChange();
        c.bundleId = bundleId;
        c.kind = kind;
        c.changedAt = Instant.now();
        c.persist();
    }
}
