-- Lists (GET /runs, GET /outcomes, GET /experiments) read newest first: ORDER BY created_at DESC,
-- id DESC. Each filter below has an index that yields its rows already in that order, so a page
-- reads only the rows it returns (plus one), never a sort of the whole history. Other filters are
-- checked on a bounded scan (src/db/pagination.ts). There is deliberately no index by
-- external_user_id: its keys are random, so every insert would land on its own page, and it was
-- measured to more than double the cost of each stored run and outcome (18 → 42 µs a row).
DROP INDEX runs_prompt;
CREATE INDEX runs_prompt_list ON runs (project_id, prompt_id, created_at, id);
CREATE INDEX runs_experiment_list ON runs (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_error_list ON runs (project_id, created_at, id) WHERE status = 'error';

CREATE INDEX outcomes_prompt_list ON outcomes (project_id, prompt_id, created_at, id);
CREATE INDEX outcomes_experiment_list ON outcomes (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX outcomes_event_list ON outcomes (project_id, event_type, created_at, id);
CREATE INDEX outcomes_run_list ON outcomes (project_id, prompt_run_id, created_at, id) WHERE prompt_run_id IS NOT NULL;

CREATE INDEX experiments_created ON experiments (project_id, created_at, id);
DROP INDEX experiments_prompt;
CREATE INDEX experiments_prompt_list ON experiments (project_id, prompt_id, created_at, id);

-- The results indexes only ever serve one experiment's rows: rows outside any experiment (most
-- traffic that is not being tested) no longer pay for them.
DROP INDEX outcomes_experiment;
CREATE INDEX outcomes_experiment ON outcomes (project_id, experiment_id, event_type, variant, attributed_user, is_success, numeric_value, label)
  WHERE experiment_id IS NOT NULL;
DROP INDEX outcomes_labels;
CREATE INDEX outcomes_labels ON outcomes (project_id, experiment_id, event_type, variant, label) WHERE label IS NOT NULL AND experiment_id IS NOT NULL;
DROP INDEX outcomes_successes;
CREATE INDEX outcomes_successes ON outcomes (project_id, experiment_id, variant, attributed_user) WHERE is_success = 1 AND experiment_id IS NOT NULL;
DROP INDEX runs_experiment;
CREATE INDEX runs_experiment ON runs (project_id, experiment_id, variant, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd)
  WHERE experiment_id IS NOT NULL;
