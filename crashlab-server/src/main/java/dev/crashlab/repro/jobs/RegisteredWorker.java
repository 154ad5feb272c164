package dev.crashlab.repro.jobs;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A worker the server has heard from: what it runs on, and when it was last seen. */
@Entity
@Table(name = "lab_worker")
public class RegisteredWorker extends PanacheEntityBase {

    @Id
    @Column(length = 128)
    public String name;

    @Column(nullable = false, length = 32)
    public String backend;

    /** The worker's devices as JSON ({@code [{"name","memoryBytes","unavailableReason"}]}). */
    @Column(name = "devices_json", nullable = false, length = 8000)
    public String devicesJson;

    @Column(length = 64)
    public String version;

    @Column(name = "first_seen", nullable = false)
    public Instant firstSeen;

    @Column(name = "last_seen", nullable = false)
    public Instant lastSeen;

    @Column(name = "current_job")
    public Long currentJob;
}
