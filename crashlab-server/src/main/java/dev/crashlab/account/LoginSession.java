package dev.crashlab.account;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A signed-in browser; the cookie carries the id, the table only its SHA-256. */
@Entity
@Table(name = "login_session")
public class LoginSession extends PanacheEntityBase {

    @Id
    @Column(name = "id_hash", length = 64)
    public String idHash;

    @Column(name = "user_id", nullable = false)
    public Long userId;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "expires_at", nullable = false)
    public Instant expiresAt;
}
