-- Secrets removed from a bundle's text files and notes at upload (SecretRedactor), counted per kind.
CREATE TABLE bundle_redaction (
    bundle_id  BIGINT      NOT NULL REFERENCES bundle (id) ON DELETE CASCADE,
    kind       VARCHAR(48) NOT NULL,
    removed    INTEGER     NOT NULL,
    PRIMARY KEY (bundle_id, kind)
);
