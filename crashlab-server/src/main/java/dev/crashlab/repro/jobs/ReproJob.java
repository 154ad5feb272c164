package dev.crashlab.repro.jobs;

import dev.crashlab.repro.worker.JobState;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One request to replay a reproduction spec on a lab worker, and what came of it. */
@Entity
@Table(name = "repro_job")
public class ReproJob extends PanacheEntityBase {

    /** Width of the JSON columns (V3 migration). */
    public static final int MAX_JSON = 1_000_000;

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    /** The bundle whose facts the spec came from; null for a spec sent on its own, or a deleted bundle. */
    @Column(name = "bundle_id")
    public Long bundleId;

    @Column(name = "spec_json", nullable = false, length = MAX_JSON)
    public String specJson;

    /** {@code any}, {@code worker:<name>} or {@code gpu:<model>} (see {@link JobTarget}). */
    @Column(nullable = false, length = 256)
    public String target;

    @Column(name = "memory_cap_bytes")
    public Long memoryCapBytes;

    /** Who queued it (a user name, or token:&lt;name&gt;); null for jobs older than V21. */
    @Column(name = "created_by", length = 200)
    public String createdBy;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 16)
    public JobState state;

    @Column(length = 128)
    public String worker;

    @Column(name = "lease_expires_at")
    public Instant leaseExpiresAt;

    /** Claims so far, the current one included. */
    @Column(nullable = false)
    public int attempts;

    @Column(name = "max_attempts", nullable = false)
    public int maxAttempts;

    /** Set when a cancel arrives while a worker holds the job; its next heartbeat tells it to stop. */
    @Column(name = "cancel_requested", nullable = false)
    public boolean cancelRequested;

    @Column(length = 512)
    public String progress;

    @Column(length = 2000)
    public String reason;

    @Column(name = "result_json", length = MAX_JSON)
    public String resultJson;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "started_at")
    public Instant startedAt;

    @Column(name = "finished_at")
    public Instant finishedAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;
}
