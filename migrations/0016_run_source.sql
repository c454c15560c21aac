-- Where a run came from: 'api' (POST /run_prompt, as callers are served) or 'playground' (POST
-- /prompts/{id}/versions/{v}/run, a trial of any version, maybe on another model). A playground run
-- is never part of an experiment and is left out of a prompt's numbers (GET /prompts/{id}/stats).
ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'playground'));

-- GET /prompts/{id}/stats reads every served run of one prompt in a time window: this index holds
-- every column it reads, so it never steps over a run's large text columns in the table itself.
CREATE INDEX runs_prompt_stats ON runs (project_id, prompt_id, created_at, prompt_version, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd)
  WHERE source = 'api';
