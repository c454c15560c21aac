-- Online scoring (docs/evaluations.md#online-scoring): an evaluator attached to a prompt scores a
-- sampled share of its live runs in the background. The worker walks each attachment's runs in
-- (created_at, id) order from its cursor; the lease keeps two replicas off the same attachment.
CREATE TABLE online_evaluators (
  project_id     TEXT NOT NULL,
  prompt_id      TEXT NOT NULL,
  evaluator_id   TEXT NOT NULL,
  sample_rate    REAL NOT NULL CHECK (sample_rate > 0 AND sample_rate <= 1),
  created_at     TEXT NOT NULL,
  cursor_at      TEXT NOT NULL,   -- created_at of the last run looked at (the attachment's time at first)
  cursor_id      TEXT NOT NULL,   -- its id ('' at first)
  lease_until    TEXT,
  PRIMARY KEY (project_id, prompt_id, evaluator_id),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id),
  FOREIGN KEY (project_id, evaluator_id) REFERENCES evaluators(project_id, evaluator_id)
);

-- One score per run and evaluator: which version scored it, the score (1/0 for pass/fail), or why none.
CREATE TABLE run_scores (
  project_id         TEXT NOT NULL,
  run_id             TEXT NOT NULL,
  evaluator_id       TEXT NOT NULL,
  evaluator_version  INTEGER NOT NULL,
  score              REAL,
  passed             INTEGER,
  error              TEXT,
  created_at         TEXT NOT NULL,
  PRIMARY KEY (project_id, run_id, evaluator_id)
);
-- Experiment metrics read one evaluator's scores joined to the variant's runs.
CREATE INDEX run_scores_evaluator ON run_scores (project_id, evaluator_id, run_id, score);
