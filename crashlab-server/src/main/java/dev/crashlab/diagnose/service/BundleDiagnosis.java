package dev.crashlab.diagnose.service;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** Stores a bundle's diagnosis as JSON, with the KB fingerprint it was computed under (a different one makes it stale). */
@Entity
@Table(name = "bundle_diagnosis")
public class BundleDiagnosis extends PanacheEntityBase {

    /** The most characters of diagnosis JSON a row holds (the column's size). */
    public static final int MAX_JSON = 1_048_576;

    @Id
    @Column(name = "bundle_id")
    public Long bundleId;

    @Column(name = "kb_fingerprint", nullable = false, length = 64)
    public String kbFingerprint;

    @Column(name = "computed_at", nullable = false)
    public Instant computedAt;

    @Column(name = "diagnosis_json", nullable = false, length = MAX_JSON)
    public String json;

    /** The most characters of signature JSON a row holds (the column's size). */
    public static final int MAX_SIGNATURE = 65_536;

    /** The bundle's {@link dev.crashlab.crashes.CrashSignature} as JSON; null in rows older than the column. */
    @Column(name = "signature_json", length = MAX_SIGNATURE)
    public String signatureJson;
}
