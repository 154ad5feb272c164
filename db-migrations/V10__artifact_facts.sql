-- What reading each artifact once gave (facts, problems, the diagnosis's text window), stored at ingest and
-- stamped with the reader's version: reads and recomputed diagnoses never parse the blobs again.
-- ${json_type} is JSONB on PostgreSQL and JSON on H2 (quarkus.flyway.placeholders.json_type).
CREATE TABLE artifact_facts (
    artifact_id     BIGINT       NOT NULL PRIMARY KEY REFERENCES artifact (id) ON DELETE CASCADE,
    bundle_id       BIGINT       NOT NULL REFERENCES bundle (id) ON DELETE CASCADE,
    reader_version  INTEGER      NOT NULL,
    bytes_read      BIGINT       NOT NULL,
    facts_json      ${json_type} NOT NULL,
    problems_json   ${json_type} NOT NULL,
    window_json     ${json_type} NOT NULL
);
CREATE INDEX artifact_facts_bundle_idx ON artifact_facts (bundle_id);

-- A bundle's reading: which reader version read it (null: not yet), how far it has got, and the budgets it hit.
ALTER TABLE bundle ADD COLUMN reader_version INTEGER;
ALTER TABLE bundle ADD COLUMN artifacts_read INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE bundle ADD COLUMN budget_hits_json ${json_type};
-- Bundles stored before background ingest: read again at start-up like any bundle of an older reader version.
UPDATE bundle SET status = 'PROCESSING' WHERE status = 'STORED';
CREATE INDEX bundle_status_idx ON bundle (status);
