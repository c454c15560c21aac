-- Calls of an experiment's user that failed to render their variant's version (a 422: a variable
-- the template needs and the caller did not send, or the render budget): the user is exposed
-- (assigned) and nothing ran, so without this count a broken variant would read "no detectable
-- difference". Results add it to the variant's errors and to the runs metric error_rate.
-- Written only by a failing call; a successful call never touches it.
ALTER TABLE assignments ADD COLUMN render_failures INTEGER NOT NULL DEFAULT 0;
-- The results read only the users with failures: a partial index keeps that read small.
CREATE INDEX assignments_render_failures ON assignments (project_id, experiment_id, variant, external_user_id) WHERE render_failures > 0;
