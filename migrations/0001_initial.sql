-- Promptline schema. Every tenant-owned table carries project_id, and every query filters on it.
-- Timestamps are ISO-8601 UTC strings with milliseconds (they sort lexicographically).

CREATE TABLE projects (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL
);

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  name        TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('runtime', 'read', 'admin')),
  key_hash    TEXT NOT NULL UNIQUE,
  key_prefix  TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  expires_at  TEXT,
  revoked_at  TEXT
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at);

CREATE TABLE prompts (
  project_id   TEXT NOT NULL REFERENCES projects(id),
  prompt_id    TEXT NOT NULL,
  description  TEXT,
  created_at   TEXT NOT NULL,
  archived_at  TEXT,
  PRIMARY KEY (project_id, prompt_id)
);
CREATE INDEX prompts_created ON prompts (project_id, created_at, prompt_id);

CREATE TABLE prompt_versions (
  project_id      TEXT NOT NULL,
  prompt_id       TEXT NOT NULL,
  version         INTEGER NOT NULL,
  template        TEXT,
  messages        TEXT,            -- JSON [{role, content}] for chat prompts
  model           TEXT,            -- NULL: the service default at run time
  params          TEXT NOT NULL,   -- JSON object
  fallbacks       TEXT NOT NULL,   -- JSON array of model strings
  variables       TEXT NOT NULL,   -- JSON array, derived from the templates
  commit_message  TEXT,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (project_id, prompt_id, version),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id),
  CHECK ((template IS NULL) <> (messages IS NULL))
);

CREATE TABLE prompt_labels (
  project_id  TEXT NOT NULL,
  prompt_id   TEXT NOT NULL,
  label       TEXT NOT NULL,
  version     INTEGER NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (project_id, prompt_id, label),
  FOREIGN KEY (project_id, prompt_id, version) REFERENCES prompt_versions(project_id, prompt_id, version)
);

CREATE TABLE experiments (
  project_id      TEXT NOT NULL REFERENCES projects(id),
  id              TEXT NOT NULL,
  prompt_id       TEXT NOT NULL,
  name            TEXT,
  hypothesis      TEXT,
  status          TEXT NOT NULL CHECK (status IN ('draft', 'running', 'paused', 'stopped')),
  variants        TEXT NOT NULL,   -- JSON [{key, version, weight}] with normalised weights
  control         TEXT NOT NULL,
  coverage        REAL NOT NULL,
  seed            TEXT NOT NULL,
  primary_metric  TEXT,            -- JSON {event_type, kind}
  winner          TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  started_at      TEXT,
  stopped_at      TEXT,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
CREATE INDEX experiments_prompt ON experiments (project_id, prompt_id, status);
-- At most one running experiment per prompt, enforced by the database itself.
CREATE UNIQUE INDEX experiments_one_running ON experiments (project_id, prompt_id) WHERE status = 'running';

-- A stored assignment is an exposure: the denominator of every result. WITHOUT ROWID: the rows live
-- in primary-key order, so results join outcomes to assignments with one seek per user that lands on
-- the row itself (a rowid table would add a second, random seek per user).
CREATE TABLE assignments (
  project_id        TEXT NOT NULL,
  experiment_id     TEXT NOT NULL,
  external_user_id  TEXT NOT NULL,
  variant           TEXT NOT NULL,
  first_seen        TEXT NOT NULL,
  last_seen         TEXT NOT NULL,
  calls             INTEGER NOT NULL,
  PRIMARY KEY (project_id, experiment_id, external_user_id),
  FOREIGN KEY (project_id, experiment_id) REFERENCES experiments(project_id, id)
) WITHOUT ROWID;
CREATE INDEX assignments_user ON assignments (project_id, external_user_id, first_seen);
-- Results: exposures per variant and UTC day, grouped in index order with no sort. first_seen is
-- repeated after the expression so SQLite counts the index as covering (no seek per row).
CREATE INDEX assignments_variant_day ON assignments (project_id, experiment_id, variant, substr(first_seen, 1, 10), first_seen);

CREATE TABLE runs (
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
  status              TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  error               TEXT,
  attempts            TEXT NOT NULL,   -- JSON [{model, attempt, status, error, latency_ms}]
  created_at          TEXT NOT NULL,
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
CREATE INDEX runs_project_created ON runs (project_id, created_at, id);
CREATE INDEX runs_prompt ON runs (project_id, prompt_id, created_at);
-- Results: covering, so counts, token and cost sums per variant and latency percentiles (ORDER BY
-- latency_ms OFFSET k within a variant's ok runs) never read the table rows.
CREATE INDEX runs_experiment ON runs (project_id, experiment_id, variant, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd);

CREATE TABLE outcomes (
  id                TEXT PRIMARY KEY,
  project_id        TEXT NOT NULL,
  prompt_id         TEXT NOT NULL,
  prompt_run_id     TEXT,
  external_user_id  TEXT,
  event_type        TEXT NOT NULL,
  label             TEXT,
  value             TEXT,
  numeric_value     REAL,
  is_success        INTEGER,
  source            TEXT,
  metadata          TEXT,            -- JSON
  experiment_id     TEXT,            -- attribution, fixed when recorded
  variant           TEXT,
  attributed_by     TEXT NOT NULL CHECK (attributed_by IN ('run', 'assignment', 'none')),
  attributed_user   TEXT,            -- the experiment unit: the assigned user (the run's user when attributed by run)
  created_at        TEXT NOT NULL
);
CREATE INDEX outcomes_project_created ON outcomes (project_id, created_at, id);
-- Covering index for results: per-user sufficient statistics stream out of it in group order.
CREATE INDEX outcomes_experiment ON outcomes (project_id, experiment_id, event_type, variant, attributed_user, is_success, numeric_value, label);
-- Results: label counts per event_type and variant in group order, reading only the labelled rows.
CREATE INDEX outcomes_labels ON outcomes (project_id, experiment_id, event_type, variant, label) WHERE label IS NOT NULL;
-- Results: users with any success per variant (cost per successful user), in group order.
CREATE INDEX outcomes_successes ON outcomes (project_id, experiment_id, variant, attributed_user) WHERE is_success = 1;
CREATE INDEX outcomes_unattributed ON outcomes (project_id, prompt_id, attributed_by, created_at);

-- Idempotency-Key replay: same key and body → the first answer.
CREATE TABLE idempotency_keys (
  project_id     TEXT NOT NULL,
  endpoint       TEXT NOT NULL,
  key            TEXT NOT NULL,
  request_hash   TEXT NOT NULL,
  status_code    INTEGER NOT NULL,
  response       TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  PRIMARY KEY (project_id, endpoint, key)
);
