package dev.crashlab.account;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Who uploaded a bundle: reporters may delete their own bundles only. */
@Entity
@Table(name = "bundle_owner")
public class BundleOwner extends PanacheEntityBase {

    @Id
    @Column(name = "bundle_id")
    public Long bundleId;

    @Column(nullable = false, length = 200)
    public String owner;
}
