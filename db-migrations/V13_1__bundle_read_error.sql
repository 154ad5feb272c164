-- Why reading a bundle failed (status FAILED), in words for its page; null when its last reading did not fail.
ALTER TABLE bundle ADD COLUMN read_error VARCHAR(2000);
