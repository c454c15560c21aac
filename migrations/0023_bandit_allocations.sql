-- A bandit's allocation history (docs/rollouts-and-bandits.md, "Bandits"): one row per period, a
-- stretch of time under one set of weights. Period 0 holds the weights the bandit started with; each
-- scheduled check starts the next period with the weights it computed. A user belongs to the period
-- in force at their first assignment (assignments.first_seen), which is how the results weight each
-- period and check each period's sample ratio against its own weights. The primary key makes a second
-- replica's write of the same period fail, so one check never re-weights twice.
CREATE TABLE bandit_allocations (
  project_id     TEXT NOT NULL,
  experiment_id  TEXT NOT NULL,
  period         INTEGER NOT NULL,
  started_at     TEXT NOT NULL,
  weights        TEXT NOT NULL,   -- JSON {variant key: weight}, the weights new users followed from started_at
  p_best         TEXT,            -- JSON {variant key: probability best} the check computed; NULL for period 0
  dropped        TEXT NOT NULL,   -- JSON [variant key], arms dropped for a failed guardrail by then
  PRIMARY KEY (project_id, experiment_id, period),
  FOREIGN KEY (project_id, experiment_id) REFERENCES experiments(project_id, id)
);
-- Finds a user's period from their first_seen: the last period started at or before it.
CREATE INDEX bandit_allocations_start ON bandit_allocations (project_id, experiment_id, started_at, period);

-- A bandit's settings, JSON {floor, stop_threshold, stop_after_minutes} with defaults filled in; NULL
-- for other types.
ALTER TABLE experiments ADD COLUMN bandit TEXT;
