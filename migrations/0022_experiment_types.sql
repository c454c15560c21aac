-- Experiment types (docs/rollouts-and-bandits.md): an A/B test ('ab', what every experiment was
-- before), a safe rollout ('rollout') or a bandit ('bandit'). Rollouts and bandits are checked by
-- the scheduler in the background; an A/B test is decided by a person reading its results.
ALTER TABLE experiments ADD COLUMN type TEXT NOT NULL DEFAULT 'ab' CHECK (type IN ('ab', 'rollout', 'bandit'));
-- A rollout's plan and progress, JSON {steps: [{percent, min_users, min_minutes}], auto_ship, step,
-- step_started_at, awaiting_approval, candidate}; NULL for other types.
ALTER TABLE experiments ADD COLUMN rollout TEXT;
-- How a checked experiment ended on its own: 'rolled_back' or 'shipped' (status is then 'stopped',
-- so every rule about stopped experiments still holds, and the API shows this instead), and why.
ALTER TABLE experiments ADD COLUMN ended_as TEXT CHECK (ended_as IN ('rolled_back', 'shipped'));
ALTER TABLE experiments ADD COLUMN end_reason TEXT;

-- When each running rollout or bandit is checked next, and the lease of the process checking it
-- now: a replica claims a check by moving the lease (compare-and-set on due_at), so each scheduled
-- time is checked once across replicas, and a check whose process died is claimed again when its
-- lease ends. A row goes when its experiment stops running.
CREATE TABLE experiment_schedule (
  project_id     TEXT NOT NULL,
  experiment_id  TEXT NOT NULL,
  due_at         TEXT NOT NULL,
  lease_owner    TEXT,
  lease_until    TEXT,
  PRIMARY KEY (project_id, experiment_id)
);

-- Every check made, scheduled or asked for (POST /experiments/{id}/check): the timeline of a
-- rollout or bandit. Written in the transaction of what the check did, so the two agree.
CREATE TABLE experiment_checks (
  project_id     TEXT NOT NULL,
  experiment_id  TEXT NOT NULL,
  id             TEXT NOT NULL,
  checked_at     TEXT NOT NULL,
  scheduled_at   TEXT,                 -- the scheduled time checked; NULL for a check asked for
  trigger        TEXT NOT NULL CHECK (trigger IN ('scheduled', 'manual')),
  action         TEXT NOT NULL,        -- hold, advance, rollback, ship, await_approval, reweight, none
  reason         TEXT NOT NULL,
  step           INTEGER,              -- a rollout's step index at the check (after an advance: the new one)
  percent        REAL,
  figures        TEXT NOT NULL,        -- JSON: what the check measured (guardrails, weights)
  PRIMARY KEY (project_id, id)
);
-- One check per scheduled time, whichever replica made it.
CREATE UNIQUE INDEX experiment_checks_scheduled ON experiment_checks (project_id, experiment_id, scheduled_at);
CREATE INDEX experiment_checks_timeline ON experiment_checks (project_id, experiment_id, checked_at, id);
