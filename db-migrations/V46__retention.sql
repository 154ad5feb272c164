-- Retention (issue 14): a pinned bundle is kept whatever its age, like one whose cause someone confirmed.
ALTER TABLE bundle ADD COLUMN pinned BOOLEAN DEFAULT FALSE NOT NULL;
-- the retention sweep looks for old bundles; the quota adds up one owner's bundles
CREATE INDEX bundle_uploaded_at_idx ON bundle (uploaded_at);
CREATE INDEX bundle_owner_owner_idx ON bundle_owner (owner);
