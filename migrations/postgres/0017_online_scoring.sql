-- Online scoring (docs/evaluations.md#online-scoring): an evaluator attached to a prompt scores a
-- sampled share of its live runs in the background. The worker walks each attachment's runs in
-- (created_at, id) order from its cursor; the lease keeps two replicas off the same attachment.
CREATE TABLE online_evaluators (
  project_id     TEXT COLLATE "C" NOT NULL,
  prompt_id      TEXT COLLATE "C" NOT NULL,
  evaluator_id   TEXT COLLATE "C" NOT NULL,
  sample_rate    DOUBLE PRECISION NOT NULL CHECK (sample_rate > 0 AND sample_rate <= 1),
  created_at     TEXT COLLATE "C" NOT NULL,
  cursor_at      TEXT COLLATE "C" NOT NULL,   -- created_at of the last run looked at (the attachment's time at first)
  cursor_id      TEXT COLLATE "C" NOT NULL,   -- its id ('' at first)
  lease_until    TEXT COLLATE "C",
  PRIMARY KEY (project_id, prompt_id, evaluator_id),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id),
  FOREIGN KEY (project_id, evaluator_id) REFERENCES evaluators(project_id, evaluator_id)
);

-- One score per run and evaluator: which version scored it, the score (1/0 for pass/fail), or why none.
CREATE TABLE run_scores (
  project_id         TEXT COLLATE "C" NOT NULL,
  run_id             TEXT COLLATE "C" NOT NULL,
  evaluator_id       TEXT COLLATE "C" NOT NULL,
  evaluator_version  BIGINT NOT NULL,
  score              DOUBLE PRECISION,
  passed             BIGINT,
  error              TEXT COLLATE "C",
  created_at         TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, run_id, evaluator_id)
);
-- Experiment metrics read one evaluator's scores joined to the variant's runs.
CREATE INDEX run_scores_evaluator ON run_scores (project_id, evaluator_id, run_id, score);
