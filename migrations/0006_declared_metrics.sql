-- Declared metrics (issue "Experiments a product owner can decide on"): an experiment carries a
-- list of metrics with a role and a direction instead of one primary metric, a target effect for
-- the "keep running" estimate, and its CUPED settings. An existing primary_metric becomes the
-- list's primary metric (higher is better, as it always meant), then the old column goes.
ALTER TABLE experiments ADD COLUMN metrics TEXT NOT NULL DEFAULT '[]';   -- JSON [{name, source, event_type, kind, role, direction, cap}]
ALTER TABLE experiments ADD COLUMN target_mde REAL NOT NULL DEFAULT 0.1;
ALTER TABLE experiments ADD COLUMN cuped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiments ADD COLUMN cuped_days INTEGER NOT NULL DEFAULT 14;
UPDATE experiments
SET metrics = json_array(json_object(
  'name', json_extract(primary_metric, '$.event_type') || ':' || json_extract(primary_metric, '$.kind'),
  'source', 'outcomes',
  'event_type', json_extract(primary_metric, '$.event_type'),
  'kind', json_extract(primary_metric, '$.kind'),
  'role', 'primary',
  'direction', 'higher',
  'cap', NULL))
WHERE primary_metric IS NOT NULL;
ALTER TABLE experiments DROP COLUMN primary_metric;

-- Runs metrics (latency, cost, errors, tokens per user): per-user groups stream out in index order.
CREATE INDEX runs_experiment_user ON runs (project_id, experiment_id, variant, external_user_id, status, latency_ms, total_tokens, cost_nano_usd)
  WHERE experiment_id IS NOT NULL;
-- CUPED: each person's outcomes in time order (the experiment's unit, or the user of an outcome
-- attributed to no experiment), so one seek per assigned user reads the days before first exposure.
CREATE INDEX outcomes_person ON outcomes (project_id, coalesce(attributed_user, external_user_id), created_at, event_type, is_success, numeric_value);
