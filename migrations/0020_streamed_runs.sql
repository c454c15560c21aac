-- Streamed runs (POST /run_prompt with Accept: text/event-stream, docs/streaming.md): a run whose
-- client went away mid-stream is stored as 'cancelled' (neither a success nor a model's error), and
-- a streamed run records its time to first token, ttft_ms (NULL for runs that were not streamed).
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt, the same columns in the
-- same order with ttft_ms last, and its indexes made again (runs_experiment_user now also holds
-- ttft_ms, so the runs metric ttft_ms reads it without touching the table).
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
  source              TEXT NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'playground')),
  ttft_ms             INTEGER,
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
INSERT INTO runs_new SELECT *, NULL FROM runs;
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
