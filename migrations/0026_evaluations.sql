-- Evaluation runs (docs/evaluations.md, "Evaluation runs"): an evaluation scores two versions of
-- a prompt on every item of a dataset version, in the background. Its model calls are stored as runs
-- of source 'evaluation' (never in an experiment, left out of a prompt's stats like the playground's).
-- SQLite cannot change a CHECK constraint in place: the runs table is rebuilt, same columns in the
-- same order, and its indexes made again.
CREATE TABLE runs_new (
  id                  TEXT PRIMARY KEY,
  project_id          TEXT NOT NULL,
  prompt_id           TEXT NOT NULL,
  prompt_version      INTEGER NOT NULL,
  experiment_id       TEXT,
  variant             TEXT,
  external_user_id    TEXT,
  inputs              TEXT NOT NULL,   -- JSON
  rendered            TEXT NOT NULL,   -- JSON [{role, content}] as sent to the model
  output              TEXT,
  model_requested     TEXT NOT NULL,
  model_used          TEXT,
  prompt_tokens       INTEGER NOT NULL DEFAULT 0,
  completion_tokens   INTEGER NOT NULL DEFAULT 0,
  total_tokens        INTEGER NOT NULL DEFAULT 0,
  cached_tokens       INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
  tokens_estimated    INTEGER NOT NULL DEFAULT 0,
  cost_nano_usd       INTEGER NOT NULL DEFAULT 0,
  cost_known          INTEGER NOT NULL DEFAULT 1,
  price               TEXT,            -- JSON price used, per million tokens
  latency_ms          INTEGER NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('ok', 'error', 'cancelled')),
  error               TEXT,
  attempts            TEXT NOT NULL,   -- JSON [{model, attempt, status, error, latency_ms}]
  created_at          TEXT NOT NULL,
  source              TEXT NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'playground', 'evaluation')),
  ttft_ms             INTEGER,
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
INSERT INTO runs_new SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;

CREATE INDEX runs_project_created ON runs (project_id, created_at, id);
CREATE INDEX runs_prompt_list ON runs (project_id, prompt_id, created_at, id);
CREATE INDEX runs_experiment_list ON runs (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_error_list ON runs (project_id, created_at, id) WHERE status = 'error';
CREATE INDEX runs_experiment ON runs (project_id, experiment_id, variant, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd)
  WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_experiment_user ON runs (project_id, experiment_id, variant, external_user_id, status, latency_ms, total_tokens, cost_nano_usd, ttft_ms)
  WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_user_list ON runs (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;
CREATE INDEX runs_prompt_stats ON runs (project_id, prompt_id, created_at, prompt_version, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd)
  WHERE source = 'api';

-- One evaluation: what it compares, its budget and where it stands. The runner holding it renews
-- `lease_until`; a replica (or a restarted process) takes it over once the lease has ended.
CREATE TABLE evaluations (
  project_id        TEXT NOT NULL REFERENCES projects(id),
  id                TEXT NOT NULL,
  prompt_id         TEXT NOT NULL,
  candidate_ref     TEXT NOT NULL,   -- as asked: a number or a label
  baseline_ref      TEXT NOT NULL,
  candidate_version INTEGER NOT NULL,
  baseline_version  INTEGER NOT NULL,
  dataset_id        TEXT NOT NULL,
  dataset_version   INTEGER NOT NULL,
  evaluators        TEXT NOT NULL,   -- JSON [{evaluator_id, version, kind, scale, settings}], fixed at creation
  concurrency       INTEGER NOT NULL,
  budget_nano_usd   INTEGER,         -- NULL: no budget
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'cancelled', 'budget_exhausted', 'failed')),
  total             INTEGER NOT NULL, -- work rows: items x 2 versions
  done              INTEGER NOT NULL DEFAULT 0,
  cost_nano_usd     INTEGER NOT NULL DEFAULT 0,
  error             TEXT,
  lease_owner       TEXT,
  lease_until       TEXT,
  created_at        TEXT NOT NULL,
  started_at        TEXT,
  finished_at       TEXT,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX evaluations_created ON evaluations (project_id, created_at, id);
CREATE INDEX evaluations_active ON evaluations (status, lease_until) WHERE status IN ('queued', 'running');

-- One work row per item and version. 'pending' -> 'calling' (committed before the model is called:
-- a call is never made twice) -> 'done'; a 'calling' row whose runner died is 'interrupted'.
CREATE TABLE evaluation_items (
  project_id    TEXT NOT NULL,
  evaluation_id TEXT NOT NULL,
  seq           INTEGER NOT NULL,   -- the item's place in the dataset version
  item_id       TEXT NOT NULL,
  side          TEXT NOT NULL CHECK (side IN ('candidate', 'baseline')),
  state         TEXT NOT NULL CHECK (state IN ('pending', 'calling', 'done', 'interrupted', 'skipped')),
  claimed_by    TEXT,
  run_id        TEXT,
  output        TEXT,
  error         TEXT,
  scores        TEXT,               -- JSON {evaluator_id: {score, passed, reason?, reasoning?} | {error, judge_error?}}
  judge_run_ids TEXT,               -- JSON [run ids]
  cost_nano_usd INTEGER NOT NULL DEFAULT 0,
  finished_at   TEXT,
  PRIMARY KEY (project_id, evaluation_id, seq, side),
  FOREIGN KEY (project_id, evaluation_id) REFERENCES evaluations(project_id, id)
);
CREATE INDEX evaluation_items_pending ON evaluation_items (project_id, evaluation_id, state, seq);
