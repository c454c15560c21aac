-- As SQLite's 0013: per assigned user, the calls that failed to render their variant's version
-- (422), counted as errors of the variant by the results; and the partial index they read it by.
ALTER TABLE assignments ADD COLUMN render_failures BIGINT NOT NULL DEFAULT 0;
CREATE INDEX assignments_render_failures ON assignments (project_id, experiment_id, variant, external_user_id) WHERE render_failures > 0;
