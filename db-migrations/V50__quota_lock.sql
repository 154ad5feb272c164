-- One row per uploader, locked (select ... for update) by the transaction that stores a new bundle of theirs while
-- it checks their quota: two uploads of one person commit one after the other and the second sees the first's bytes.
-- (The quota was serialised by blob_guard, the cluster-wide upload lock that V48 removed.)
CREATE TABLE quota_lock (
    owner VARCHAR(255) PRIMARY KEY
);
