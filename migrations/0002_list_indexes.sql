-- Lists (GET /runs, GET /outcomes) read newest first: ORDER BY created_at DESC, id DESC. Each filter
-- has an index that yields its rows already in that order, so a page reads only the rows it returns
-- (plus one), never a sort of the whole history. Filters beyond the first are checked on a bounded
-- scan (src/db/pagination.ts).
DROP INDEX runs_prompt;
CREATE INDEX runs_prompt_list ON runs (project_id, prompt_id, created_at, id);
CREATE INDEX runs_experiment_list ON runs (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_user_list ON runs (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;
CREATE INDEX runs_error_list ON runs (project_id, created_at, id) WHERE status = 'error';

CREATE INDEX outcomes_prompt_list ON outcomes (project_id, prompt_id, created_at, id);
CREATE INDEX outcomes_experiment_list ON outcomes (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX outcomes_user_list ON outcomes (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;
CREATE INDEX outcomes_event_list ON outcomes (project_id, event_type, created_at, id);
CREATE INDEX outcomes_run_list ON outcomes (project_id, prompt_run_id, created_at, id) WHERE prompt_run_id IS NOT NULL;

CREATE INDEX experiments_created ON experiments (project_id, created_at, id);
DROP INDEX experiments_prompt;
CREATE INDEX experiments_prompt_list ON experiments (project_id, prompt_id, created_at, id);
