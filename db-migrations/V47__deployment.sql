-- Issue 24: the deployment's identity, also written as a marker in its blob store (object or file), so that a server
-- whose database and blob store belong to different deployments refuses to start instead of sweeping the other's blobs.
-- One row; the identity is filled in by the first server that starts on this database.
CREATE TABLE deployment (
    id         INTEGER PRIMARY KEY,
    identity   VARCHAR(64)
);
INSERT INTO deployment (id) VALUES (1);
