package dev.crashlab.diagnose.service;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** The cause someone confirmed for a bundle: a KB article id and an optional note. */
@Entity
@Table(name = "bundle_resolution")
public class BundleResolution extends PanacheEntityBase {

    /** The most characters of a note. */
    public static final int MAX_NOTE = 2000;

    @Id
    @Column(name = "bundle_id")
    public Long bundleId;

    @Column(name = "article_id", nullable = false, length = 128)
    public String articleId;

    @Column(name = "note", length = MAX_NOTE)
    public String note;

    @Column(name = "confirmed_at", nullable = false)
    public Instant confirmedAt;
}
