-- Issue 24 item 4: reading a bundle is a leased job. The server that reads a PROCESSING bundle holds its lease
-- (its server id, from its data folder, and until when) and renews it while it reads; when a server dies, another
-- takes the bundle over once the lease has run out. Set by the upload itself, so no other server starts on a bundle
-- the uploading server is about to read; cleared when the reading ends (READY or FAILED).
ALTER TABLE bundle ADD COLUMN read_lease_owner VARCHAR(64);
ALTER TABLE bundle ADD COLUMN read_lease_until TIMESTAMP WITH TIME ZONE;
