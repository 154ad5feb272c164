package dev.crashlab.account;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** An API token; only the SHA-256 of its value is kept. */
@Entity
@Table(name = "api_token")
public class ApiToken extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "token_hash", nullable = false, length = 64)
    public String tokenHash;

    @Column(nullable = false, length = 128)
    public String name;

    /** The owner; null for the token provisioned by CRASHLAB_ADMIN_TOKEN and for worker tokens. */
    @Column(name = "user_id")
    public Long userId;

    @Column(nullable = false, length = 200)
    public String roles;

    /** Set for worker tokens: the only worker name the token may act as. */
    @Column(name = "worker_name", length = 128)
    public String workerName;

    @Column(name = "created_by", nullable = false, length = 200)
    public String createdBy;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "expires_at")
    public Instant expiresAt;

    @Column(name = "revoked_at")
    public Instant revokedAt;

    @Column(name = "last_used_at")
    public Instant lastUsedAt;
}
