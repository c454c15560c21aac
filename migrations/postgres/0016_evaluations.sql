-- Evaluation runs (docs/evaluations.md, "Evaluation runs"): an evaluation scores two versions of
-- a prompt on every item of a dataset version, in the background. Its model calls are stored as runs
-- of source 'evaluation' (never in an experiment, left out of a prompt's stats like the playground's).
ALTER TABLE runs DROP CONSTRAINT runs_source_check;
ALTER TABLE runs ADD CONSTRAINT runs_source_check CHECK (source IN ('api', 'playground', 'evaluation'));

-- One evaluation: what it compares, its budget and where it stands. The runner holding it renews
-- `lease_until`; a replica (or a restarted process) takes it over once the lease has ended.
CREATE TABLE evaluations (
  project_id        TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  id                TEXT COLLATE "C" NOT NULL,
  prompt_id         TEXT COLLATE "C" NOT NULL,
  candidate_ref     TEXT COLLATE "C" NOT NULL,   -- as asked: a number or a label
  baseline_ref      TEXT COLLATE "C" NOT NULL,
  candidate_version BIGINT NOT NULL,
  baseline_version  BIGINT NOT NULL,
  dataset_id        TEXT COLLATE "C" NOT NULL,
  dataset_version   BIGINT NOT NULL,
  evaluators        TEXT COLLATE "C" NOT NULL,   -- JSON [{evaluator_id, version, kind, scale, settings}], fixed at creation
  concurrency       BIGINT NOT NULL,
  budget_nano_usd   BIGINT,         -- NULL: no budget
  status            TEXT COLLATE "C" NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'cancelled', 'budget_exhausted', 'failed')),
  total             BIGINT NOT NULL, -- work rows: items x 2 versions
  done              BIGINT NOT NULL DEFAULT 0,
  cost_nano_usd     BIGINT NOT NULL DEFAULT 0,
  error             TEXT COLLATE "C",
  lease_owner       TEXT COLLATE "C",
  lease_until       TEXT COLLATE "C",
  created_at        TEXT COLLATE "C" NOT NULL,
  started_at        TEXT COLLATE "C",
  finished_at       TEXT COLLATE "C",
  PRIMARY KEY (project_id, id)
);
CREATE INDEX evaluations_created ON evaluations (project_id, created_at, id);
CREATE INDEX evaluations_active ON evaluations (status, lease_until) WHERE status IN ('queued', 'running');

-- One work row per item and version. 'pending' -> 'calling' (committed before the model is called:
-- a call is never made twice) -> 'done'; a 'calling' row whose runner died is 'interrupted'.
CREATE TABLE evaluation_items (
  project_id    TEXT COLLATE "C" NOT NULL,
  evaluation_id TEXT COLLATE "C" NOT NULL,
  seq           BIGINT NOT NULL,   -- the item's place in the dataset version
  item_id       TEXT COLLATE "C" NOT NULL,
  side          TEXT COLLATE "C" NOT NULL CHECK (side IN ('candidate', 'baseline')),
  state         TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'calling', 'done', 'interrupted', 'skipped')),
  claimed_by    TEXT COLLATE "C",
  run_id        TEXT COLLATE "C",
  output        TEXT COLLATE "C",
  error         TEXT COLLATE "C",
  scores        TEXT COLLATE "C",               -- JSON {evaluator_id: {score, passed, reason?, reasoning?} | {error, judge_error?}}
  judge_run_ids TEXT COLLATE "C",               -- JSON [run ids]
  cost_nano_usd BIGINT NOT NULL DEFAULT 0,
  finished_at   TEXT COLLATE "C",
  PRIMARY KEY (project_id, evaluation_id, seq, side),
  FOREIGN KEY (project_id, evaluation_id) REFERENCES evaluations(project_id, id)
);
CREATE INDEX evaluation_items_pending ON evaluation_items (project_id, evaluation_id, state, seq);
