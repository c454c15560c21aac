-- A bandit's allocation history (SQLite 0023, which explains it): one row per period under one set of
-- weights; period 0 the starting weights, each scheduled check the next. The primary key makes a
-- second replica's write of the same period fail, so one check never re-weights twice.
CREATE TABLE bandit_allocations (
  project_id     TEXT COLLATE "C" NOT NULL,
  experiment_id  TEXT COLLATE "C" NOT NULL,
  period         BIGINT NOT NULL,
  started_at     TEXT COLLATE "C" NOT NULL,
  weights        TEXT COLLATE "C" NOT NULL,   -- JSON {variant key: weight}
  p_best         TEXT COLLATE "C",            -- JSON {variant key: probability best}; NULL for period 0
  dropped        TEXT COLLATE "C" NOT NULL,   -- JSON [variant key]
  PRIMARY KEY (project_id, experiment_id, period),
  FOREIGN KEY (project_id, experiment_id) REFERENCES experiments(project_id, id)
);
CREATE INDEX bandit_allocations_start ON bandit_allocations (project_id, experiment_id, started_at, period);

-- A bandit's settings, JSON {floor, stop_threshold, stop_after_minutes}; NULL for other types.
ALTER TABLE experiments ADD COLUMN bandit TEXT COLLATE "C";
