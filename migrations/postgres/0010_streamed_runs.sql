-- Streamed runs (POST /run_prompt with Accept: text/event-stream, docs/streaming.md): a run whose
-- client went away mid-stream is stored as 'cancelled' (neither a success nor a model's error), and
-- a streamed run records its time to first token, ttft_ms (NULL for runs that were not streamed).
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN ('ok', 'error', 'cancelled'));
ALTER TABLE runs ADD COLUMN ttft_ms BIGINT;

-- The runs metric ttft_ms is read per user from this index, as latency_ms is.
DROP INDEX runs_experiment_user;
CREATE INDEX runs_experiment_user ON runs (project_id, experiment_id, variant, external_user_id, status, latency_ms, total_tokens, cost_nano_usd, ttft_ms)
  WHERE experiment_id IS NOT NULL;
