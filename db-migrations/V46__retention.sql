-- Retention (issue 14): a pinned bundle is kept whatever its age, like one whose cause someone confirmed.
-- (The sweep's look for old bundles uses V1's bundle_uploaded_at_idx.)
ALTER TABLE bundle ADD COLUMN pinned BOOLEAN DEFAULT FALSE NOT NULL;
-- the quota adds up one owner's bundles
CREATE INDEX bundle_owner_owner_idx ON bundle_owner (owner);
