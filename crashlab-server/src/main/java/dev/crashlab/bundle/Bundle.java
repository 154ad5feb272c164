package dev.crashlab.bundle;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.CascadeType;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.MapKeyColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One uploaded crash bundle: the files someone sent about one crash. */
@Entity
@Table(name = "bundle")
public class Bundle extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false, length = 512)
    public String name;

    @Column(name = "uploaded_at", nullable = false)
    public Instant uploadedAt;

    /** Bytes received: the uploaded archive, or the loose files together. */
    @Column(name = "size_bytes", nullable = false)
    public long size;

    /** SHA-256 of the single uploaded file, or of the manifest of several (see {@link BundleManifest}). */
    @Column(nullable = false, length = 64)
    public String sha256;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 32)
    public BundleStatus status;

    @Column(length = 4000)
    public String notes;

    /** The {@code facts.BundleReader} version whose reading is stored; null until the first reading is stored. */
    @Column(name = "reader_version")
    public Integer readerVersion;

    /** How many artifacts the reading in progress has read (progress for the bundle page). */
    @Column(name = "artifacts_read", nullable = false)
    public int artifactsRead;

    /** Why the last reading failed, for a person (status {@link BundleStatus#FAILED}); null otherwise. */
    @Column(name = "read_error", length = 2000)
    public String readError;

    /** The budgets the stored reading reached, as {@code [{"budget","artifact","message"}]}; null when none. */
    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "budget_hits_json")
    public String budgetHitsJson;

    /** Secrets removed from the bundle's text files and notes at upload, per kind ({@link SecretRedactor}). */
    @ElementCollection
    @CollectionTable(name = "bundle_redaction", joinColumns = @JoinColumn(name = "bundle_id"))
    @MapKeyColumn(name = "kind", length = 48)
    @Column(name = "removed", nullable = false)
    public Map<String, Integer> redactions = new TreeMap<>();

    /** Kept by retention whatever its age ({@code retention.RetentionService}). */
    @Column(nullable = false)
    public boolean pinned;

    /** The server reading this bundle (its id, {@link ReadLeases#self}), while it is PROCESSING; null otherwise. */
    @Column(name = "read_lease_owner", length = 64)
    public String readLeaseOwner;

    /** Until when that server holds it; another server takes the bundle over after this (V49). */
    @Column(name = "read_lease_until")
    public Instant readLeaseUntil;

    @OneToMany(mappedBy = "bundle", cascade = CascadeType.ALL, orphanRemoval = true)
    @OrderBy("path")
    public List<Artifact> artifacts = new ArrayList<>();
}
