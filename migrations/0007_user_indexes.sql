-- Everything about one user, found without a scan: the runs and outcomes lists filtered by
-- external_user_id, and erasure (DELETE /users/{external_user_id}).
CREATE INDEX runs_user_list ON runs (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;
CREATE INDEX outcomes_user_list ON outcomes (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;
