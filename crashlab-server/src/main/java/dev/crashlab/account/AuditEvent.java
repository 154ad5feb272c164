package dev.crashlab.account;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One thing someone did: who, what, to what, when. */
@Entity
@Table(name = "audit_event")
public class AuditEvent extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false)
    public Instant at;

    @Column(nullable = false, length = 200)
    public String actor;

    @Column(nullable = false, length = 64)
    public String action;

    @Column(length = 200)
    public String target;

    @Column(length = 1000)
    public String detail;
}
