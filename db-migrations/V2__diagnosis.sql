-- A bundle's diagnosis as computed at upload, with the fingerprint of the KB and compat data it used:
-- a row whose fingerprint differs from the running KB's is stale and is recomputed on the next read.
CREATE TABLE bundle_diagnosis (
    bundle_id       BIGINT                   NOT NULL PRIMARY KEY REFERENCES bundle (id) ON DELETE CASCADE,
    kb_fingerprint  VARCHAR(64)              NOT NULL,
    computed_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    diagnosis_json  VARCHAR(1048576)         NOT NULL
);
