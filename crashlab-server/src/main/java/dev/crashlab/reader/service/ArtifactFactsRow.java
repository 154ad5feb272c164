package dev.crashlab.reader.service;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** What reading one artifact gave, in its stored form ({@link dev.crashlab.reader.FactsJson}). */
@Entity
@Table(name = "artifact_facts")
public class ArtifactFactsRow extends PanacheEntityBase {

    @Id
    @Column(name = "artifact_id")
    public Long artifactId;

    @Column(name = "bundle_id", nullable = false)
    public long bundleId;

    @Column(name = "reader_version", nullable = false)
    public int readerVersion;

    @Column(name = "bytes_read", nullable = false)
    public long bytesRead;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "facts_json", nullable = false)
    public String factsJson;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "problems_json", nullable = false)
    public String problemsJson;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "window_json", nullable = false)
    public String windowJson;
}
