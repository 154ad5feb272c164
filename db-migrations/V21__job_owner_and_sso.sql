-- Issue 12: who queued a reproduction job (the per-user cap of queued jobs counts by it), and the OpenID
-- Connect subject an account signs in as by single sign-on (null for local accounts).
ALTER TABLE repro_job ADD COLUMN created_by VARCHAR(200);
CREATE INDEX repro_job_owner_idx ON repro_job (created_by, state);
ALTER TABLE app_user ADD COLUMN oidc_subject VARCHAR(255);
CREATE UNIQUE INDEX app_user_oidc_subject_uq ON app_user (oidc_subject);
