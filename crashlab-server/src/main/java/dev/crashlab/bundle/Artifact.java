package dev.crashlab.bundle;

import dev.crashlab.reader.ParseStatus;

import dev.crashlab.sniff.ArtifactType;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** One file of a bundle; its bytes live in the blob store under {@link #sha256}. */
@Entity
@Table(name = "artifact")
public class Artifact extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "bundle_id", nullable = false)
    public Bundle bundle;

    /** Path inside the bundle, '/'-separated; archive contents sit under the archive's own path. */
    @Column(nullable = false, length = 1024)
    public String path;

    @Column(name = "size_bytes", nullable = false)
    public long size;

    @Column(nullable = false, length = 64)
    public String sha256;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 48)
    public ArtifactType type;

    @Enumerated(EnumType.STRING)
    @Column(name = "parse_status", nullable = false, length = 32)
    public ParseStatus parseStatus;

    /** Counts artifact rows, of any bundle, whose bytes are the blob {@code sha256}. */
    public static long countUsing(String sha256) {
        return count("sha256", sha256);
    }
}
