-- Experiment types (docs/rollouts-and-bandits.md), as SQLite's 0022: an A/B test ('ab'), a safe
-- rollout ('rollout') or a bandit ('bandit'), checked by the scheduler in the background.
ALTER TABLE experiments ADD COLUMN type TEXT COLLATE "C" NOT NULL DEFAULT 'ab' CHECK (type IN ('ab', 'rollout', 'bandit'));
-- A rollout's plan and progress (JSON); NULL for other types.
ALTER TABLE experiments ADD COLUMN rollout TEXT COLLATE "C";
-- How a checked experiment ended on its own (status is then 'stopped'), and why.
ALTER TABLE experiments ADD COLUMN ended_as TEXT COLLATE "C" CHECK (ended_as IN ('rolled_back', 'shipped'));
ALTER TABLE experiments ADD COLUMN end_reason TEXT COLLATE "C";

-- When each running rollout or bandit is checked next, and the lease of the replica checking it now.
CREATE TABLE experiment_schedule (
  project_id     TEXT COLLATE "C" NOT NULL,
  experiment_id  TEXT COLLATE "C" NOT NULL,
  due_at         TEXT COLLATE "C" NOT NULL,
  lease_owner    TEXT COLLATE "C",
  lease_until    TEXT COLLATE "C",
  PRIMARY KEY (project_id, experiment_id)
);

-- Every check made, scheduled or asked for: the timeline of a rollout or bandit.
CREATE TABLE experiment_checks (
  project_id     TEXT COLLATE "C" NOT NULL,
  experiment_id  TEXT COLLATE "C" NOT NULL,
  id             TEXT COLLATE "C" NOT NULL,
  checked_at     TEXT COLLATE "C" NOT NULL,
  scheduled_at   TEXT COLLATE "C",
  trigger        TEXT COLLATE "C" NOT NULL CHECK (trigger IN ('scheduled', 'manual')),
  action         TEXT COLLATE "C" NOT NULL,
  reason         TEXT COLLATE "C" NOT NULL,
  step           BIGINT,
  percent        DOUBLE PRECISION,
  figures        TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, id)
);
-- One check per scheduled time, whichever replica made it.
CREATE UNIQUE INDEX experiment_checks_scheduled ON experiment_checks (project_id, experiment_id, scheduled_at);
CREATE INDEX experiment_checks_timeline ON experiment_checks (project_id, experiment_id, checked_at, id);
