package dev.crashlab.account;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A person who signs in. */
@Entity
@Table(name = "app_user")
public class UserAccount extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false, length = 64)
    public String username;

    /** bcrypt string. */
    @Column(name = "password_hash", nullable = false, length = 100)
    public String passwordHash;

    /** Granted roles, comma-separated (see {@link Roles}). */
    @Column(nullable = false, length = 200)
    public String roles;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(nullable = false)
    public boolean disabled;

    /** The OpenID Connect subject this account signs in as by single sign-on; null for local accounts. */
    @Column(name = "oidc_subject", length = 255)
    public String oidcSubject;
}
