-- PostgreSQL schema equal to the final state of SQLite's migrations 0001–0011 (migrations/*.sql):
-- the same tables, columns (in SQLite's order), constraints and index names. Later PostgreSQL
-- migrations are numbered files beside this one. schema_migrations is created by the migrator.
--
-- Type mapping: TEXT → TEXT COLLATE "C" (byte-order sorting of ids and ISO timestamps, as in
-- SQLite); INTEGER → BIGINT (booleans stay 0/1 integers); REAL → DOUBLE PRECISION; BLOB → BYTEA.
-- JSON is stored as TEXT. Timestamps are ISO-8601 UTC strings with milliseconds.
--
-- Row identity: SQLite code deletes batches with `WHERE rowid IN (SELECT rowid … LIMIT n)` on
-- idempotency_keys and webhook_deliveries (both rowid tables in SQLite). No column is added for it:
-- the PostgreSQL dialect (src/db/dialect.ts) uses the system column ctid in the same query shape,
-- which is valid within one statement. SQLite-only planner hints (INDEXED BY) are dropped by the
-- adapter; the indexes they name exist here under the same names.

CREATE TABLE projects (
  id          TEXT COLLATE "C" PRIMARY KEY,
  name        TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE api_keys (
  id                     TEXT COLLATE "C" PRIMARY KEY,
  project_id             TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  name                   TEXT COLLATE "C" NOT NULL,
  role                   TEXT COLLATE "C" NOT NULL CHECK (role IN ('runtime', 'read', 'admin')),
  key_hash               TEXT COLLATE "C" NOT NULL UNIQUE,
  key_prefix             TEXT COLLATE "C" NOT NULL,
  created_at             TEXT COLLATE "C" NOT NULL,
  expires_at             TEXT COLLATE "C",
  revoked_at             TEXT COLLATE "C",
  -- NULL: the server default; 0: no limit; n: n requests a minute (SQLite 0003).
  rate_limit_per_minute  BIGINT CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute >= 0)
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at);

CREATE TABLE prompts (
  project_id   TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  prompt_id    TEXT COLLATE "C" NOT NULL,
  description  TEXT COLLATE "C",
  created_at   TEXT COLLATE "C" NOT NULL,
  archived_at  TEXT COLLATE "C",
  PRIMARY KEY (project_id, prompt_id)
);
CREATE INDEX prompts_created ON prompts (project_id, created_at, prompt_id);

CREATE TABLE prompt_versions (
  project_id      TEXT COLLATE "C" NOT NULL,
  prompt_id       TEXT COLLATE "C" NOT NULL,
  version         BIGINT NOT NULL,
  template        TEXT COLLATE "C",
  messages        TEXT COLLATE "C",            -- JSON [{role, content}] for chat prompts
  model           TEXT COLLATE "C",            -- NULL: the service default at run time
  params          TEXT COLLATE "C" NOT NULL,   -- JSON object
  fallbacks       TEXT COLLATE "C" NOT NULL,   -- JSON array of model strings
  variables       TEXT COLLATE "C" NOT NULL,   -- JSON array, derived from the templates
  commit_message  TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, prompt_id, version),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id),
  CHECK ((template IS NULL) <> (messages IS NULL))
);

CREATE TABLE prompt_labels (
  project_id  TEXT COLLATE "C" NOT NULL,
  prompt_id   TEXT COLLATE "C" NOT NULL,
  label       TEXT COLLATE "C" NOT NULL,
  version     BIGINT NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, prompt_id, label),
  FOREIGN KEY (project_id, prompt_id, version) REFERENCES prompt_versions(project_id, prompt_id, version)
);

-- primary_metric was dropped by SQLite 0006 (folded into metrics); shipped_version comes from 0005,
-- metrics/target_mde/cuped/cuped_days from 0006, appended in that order as in SQLite.
CREATE TABLE experiments (
  project_id       TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  id               TEXT COLLATE "C" NOT NULL,
  prompt_id        TEXT COLLATE "C" NOT NULL,
  name             TEXT COLLATE "C",
  hypothesis       TEXT COLLATE "C",
  status           TEXT COLLATE "C" NOT NULL CHECK (status IN ('draft', 'running', 'paused', 'stopped')),
  variants         TEXT COLLATE "C" NOT NULL,   -- JSON [{key, version, weight}] with normalised weights
  control          TEXT COLLATE "C" NOT NULL,
  coverage         DOUBLE PRECISION NOT NULL,
  seed             TEXT COLLATE "C" NOT NULL,
  winner           TEXT COLLATE "C",
  created_at       TEXT COLLATE "C" NOT NULL,
  updated_at       TEXT COLLATE "C" NOT NULL,
  started_at       TEXT COLLATE "C",
  stopped_at       TEXT COLLATE "C",
  shipped_version  BIGINT,                                      -- NULL: stopped without shipping (or not stopped)
  metrics          TEXT COLLATE "C" NOT NULL DEFAULT '[]',     -- JSON [{name, source, event_type, kind, role, direction, cap}]
  target_mde       DOUBLE PRECISION NOT NULL DEFAULT 0.1,
  cuped            BIGINT NOT NULL DEFAULT 0,                  -- boolean 0/1
  cuped_days       BIGINT NOT NULL DEFAULT 14,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
-- At most one running experiment per prompt, enforced by the database itself.
CREATE UNIQUE INDEX experiments_one_running ON experiments (project_id, prompt_id) WHERE status = 'running';
CREATE INDEX experiments_created ON experiments (project_id, created_at, id);
CREATE INDEX experiments_prompt_list ON experiments (project_id, prompt_id, created_at, id);

-- A stored assignment is an exposure. SQLite declares it WITHOUT ROWID (clustered by primary key);
-- PostgreSQL has no clustered tables, so it is an ordinary heap table with the same primary key.
CREATE TABLE assignments (
  project_id        TEXT COLLATE "C" NOT NULL,
  experiment_id     TEXT COLLATE "C" NOT NULL,
  external_user_id  TEXT COLLATE "C" NOT NULL,
  variant           TEXT COLLATE "C" NOT NULL,
  first_seen        TEXT COLLATE "C" NOT NULL,
  last_seen         TEXT COLLATE "C" NOT NULL,
  calls             BIGINT NOT NULL,
  pre_key           TEXT COLLATE "C",   -- CUPED covariate key, JSON [cuped_days, event types] (SQLite 0011)
  pre               TEXT COLLATE "C",   -- JSON, as SQLite's json_array renders it (SQLite 0011)
  PRIMARY KEY (project_id, experiment_id, external_user_id),
  FOREIGN KEY (project_id, experiment_id) REFERENCES experiments(project_id, id)
);
CREATE INDEX assignments_user ON assignments (project_id, external_user_id, first_seen);
CREATE INDEX assignments_variant_day ON assignments (project_id, experiment_id, variant, (substr(first_seen, 1, 10)), first_seen);

CREATE TABLE runs (
  id                  TEXT COLLATE "C" PRIMARY KEY,
  project_id          TEXT COLLATE "C" NOT NULL,
  prompt_id           TEXT COLLATE "C" NOT NULL,
  prompt_version      BIGINT NOT NULL,
  experiment_id       TEXT COLLATE "C",
  variant             TEXT COLLATE "C",
  external_user_id    TEXT COLLATE "C",
  inputs              TEXT COLLATE "C" NOT NULL,   -- JSON
  rendered            TEXT COLLATE "C" NOT NULL,   -- JSON [{role, content}] as sent to the model
  output              TEXT COLLATE "C",
  model_requested     TEXT COLLATE "C" NOT NULL,
  model_used          TEXT COLLATE "C",
  prompt_tokens       BIGINT NOT NULL DEFAULT 0,
  completion_tokens   BIGINT NOT NULL DEFAULT 0,
  total_tokens        BIGINT NOT NULL DEFAULT 0,
  cached_tokens       BIGINT NOT NULL DEFAULT 0,
  reasoning_tokens    BIGINT NOT NULL DEFAULT 0,
  tokens_estimated    BIGINT NOT NULL DEFAULT 0,   -- boolean 0/1
  cost_nano_usd       BIGINT NOT NULL DEFAULT 0,
  cost_known          BIGINT NOT NULL DEFAULT 1,   -- boolean 0/1
  price               TEXT COLLATE "C",            -- JSON price used, per million tokens
  latency_ms          BIGINT NOT NULL,
  status              TEXT COLLATE "C" NOT NULL CHECK (status IN ('ok', 'error')),
  error               TEXT COLLATE "C",
  attempts            TEXT COLLATE "C" NOT NULL,   -- JSON [{model, attempt, status, error, latency_ms}]
  created_at          TEXT COLLATE "C" NOT NULL,
  FOREIGN KEY (project_id, prompt_id) REFERENCES prompts(project_id, prompt_id)
);
CREATE INDEX runs_project_created ON runs (project_id, created_at, id);
CREATE INDEX runs_prompt_list ON runs (project_id, prompt_id, created_at, id);
CREATE INDEX runs_experiment_list ON runs (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_error_list ON runs (project_id, created_at, id) WHERE status = 'error';
CREATE INDEX runs_experiment ON runs (project_id, experiment_id, variant, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd)
  WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_experiment_user ON runs (project_id, experiment_id, variant, external_user_id, status, latency_ms, total_tokens, cost_nano_usd)
  WHERE experiment_id IS NOT NULL;
CREATE INDEX runs_user_list ON runs (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;

CREATE TABLE outcomes (
  id                TEXT COLLATE "C" PRIMARY KEY,
  project_id        TEXT COLLATE "C" NOT NULL,
  prompt_id         TEXT COLLATE "C" NOT NULL,
  prompt_run_id     TEXT COLLATE "C",
  external_user_id  TEXT COLLATE "C",
  event_type        TEXT COLLATE "C" NOT NULL,
  label             TEXT COLLATE "C",
  value             TEXT COLLATE "C",
  numeric_value     DOUBLE PRECISION,
  is_success        BIGINT,                      -- boolean 0/1, or NULL
  source            TEXT COLLATE "C",
  metadata          TEXT COLLATE "C",            -- JSON
  experiment_id     TEXT COLLATE "C",            -- attribution, fixed when recorded
  variant           TEXT COLLATE "C",
  attributed_by     TEXT COLLATE "C" NOT NULL CHECK (attributed_by IN ('run', 'assignment', 'none')),
  attributed_user   TEXT COLLATE "C",            -- the experiment unit
  created_at        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX outcomes_project_created ON outcomes (project_id, created_at, id);
CREATE INDEX outcomes_experiment ON outcomes (project_id, experiment_id, event_type, variant, attributed_user, is_success, numeric_value, label)
  WHERE experiment_id IS NOT NULL;
CREATE INDEX outcomes_labels ON outcomes (project_id, experiment_id, event_type, variant, label)
  WHERE label IS NOT NULL AND experiment_id IS NOT NULL;
CREATE INDEX outcomes_successes ON outcomes (project_id, experiment_id, variant, attributed_user)
  WHERE is_success = 1 AND experiment_id IS NOT NULL;
CREATE INDEX outcomes_unattributed ON outcomes (project_id, prompt_id, attributed_by, created_at);
CREATE INDEX outcomes_prompt_list ON outcomes (project_id, prompt_id, created_at, id);
CREATE INDEX outcomes_experiment_list ON outcomes (project_id, experiment_id, created_at, id) WHERE experiment_id IS NOT NULL;
CREATE INDEX outcomes_event_list ON outcomes (project_id, event_type, created_at, id);
CREATE INDEX outcomes_run_list ON outcomes (project_id, prompt_run_id, created_at, id) WHERE prompt_run_id IS NOT NULL;
CREATE INDEX outcomes_person ON outcomes (project_id, (coalesce(attributed_user, external_user_id)), created_at, event_type, is_success, numeric_value);
CREATE INDEX outcomes_user_list ON outcomes (project_id, external_user_id, created_at, id) WHERE external_user_id IS NOT NULL;

-- Idempotency-Key replay: same key and body → the first answer.
-- Batch deletes by age use ctid in place of SQLite's rowid (see the note at the top); no column added.
CREATE TABLE idempotency_keys (
  project_id     TEXT COLLATE "C" NOT NULL,
  endpoint       TEXT COLLATE "C" NOT NULL,
  key            TEXT COLLATE "C" NOT NULL,
  request_hash   TEXT COLLATE "C" NOT NULL,
  status_code    BIGINT NOT NULL,
  response       TEXT COLLATE "C" NOT NULL,
  created_at     TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, endpoint, key)
);
CREATE INDEX idempotency_created ON idempotency_keys (project_id, created_at);

-- One row that /readyz writes while writes are failing (SQLite: INTEGER PRIMARY KEY, a rowid alias;
-- here a plain BIGINT key, always given explicitly as 1).
CREATE TABLE storage_probe (
  id          BIGINT PRIMARY KEY CHECK (id = 1),
  checked_at  TEXT COLLATE "C" NOT NULL,
  room        BYTEA
);

-- Audit log: every management change, written in the same transaction as the change itself.
CREATE TABLE audit_log (
  project_id   TEXT COLLATE "C" NOT NULL,
  id           TEXT COLLATE "C" NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  key_id       TEXT COLLATE "C",            -- NULL for the CLI
  key_name     TEXT COLLATE "C" NOT NULL,
  action       TEXT COLLATE "C" NOT NULL,
  target_type  TEXT COLLATE "C" NOT NULL,
  target_id    TEXT COLLATE "C" NOT NULL,
  before       TEXT COLLATE "C",            -- JSON before the change (NULL when it is new)
  after        TEXT COLLATE "C",            -- JSON after (NULL when it is gone)
  PRIMARY KEY (project_id, id)
);
CREATE INDEX audit_created ON audit_log (project_id, created_at, id);
CREATE INDEX audit_target_list ON audit_log (project_id, target_id, created_at, id);
CREATE INDEX audit_action_list ON audit_log (project_id, action, created_at, id);
CREATE INDEX audit_key_list ON audit_log (project_id, key_id, created_at, id) WHERE key_id IS NOT NULL;

-- Webhooks: endpoints a project registers, and the durable queue of deliveries to them.
CREATE TABLE webhooks (
  project_id   TEXT COLLATE "C" NOT NULL,
  id           TEXT COLLATE "C" NOT NULL,
  url          TEXT COLLATE "C" NOT NULL,
  events       TEXT COLLATE "C" NOT NULL,            -- JSON array of event types
  description  TEXT COLLATE "C" NOT NULL DEFAULT '',
  secret       TEXT COLLATE "C" NOT NULL,
  enabled      BIGINT NOT NULL DEFAULT 1,            -- boolean 0/1
  created_at   TEXT COLLATE "C" NOT NULL,
  updated_at   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, id)
);

-- Pruning of finished deliveries uses ctid in place of SQLite's rowid (see the note at the top).
CREATE TABLE webhook_deliveries (
  project_id        TEXT COLLATE "C" NOT NULL,
  id                TEXT COLLATE "C" NOT NULL,
  webhook_id        TEXT COLLATE "C" NOT NULL,
  event_id          TEXT COLLATE "C" NOT NULL,
  event_type        TEXT COLLATE "C" NOT NULL,
  payload           TEXT COLLATE "C" NOT NULL,       -- the exact JSON body sent (and signed)
  status            TEXT COLLATE "C" NOT NULL,       -- pending, delivered, failed
  attempts          BIGINT NOT NULL DEFAULT 0,
  next_attempt_at   TEXT COLLATE "C",
  last_attempt_at   TEXT COLLATE "C",
  last_status_code  BIGINT,
  last_error        TEXT COLLATE "C",
  created_at        TEXT COLLATE "C" NOT NULL,
  finished_at       TEXT COLLATE "C",
  PRIMARY KEY (project_id, id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (project_id, webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

-- What the last look at a running experiment saw, so srm_detected and decision_changed fire on a change only.
CREATE TABLE experiment_signals (
  project_id     TEXT COLLATE "C" NOT NULL,
  experiment_id  TEXT COLLATE "C" NOT NULL,
  srm_flagged    BIGINT NOT NULL,                    -- boolean 0/1
  decisions      TEXT COLLATE "C" NOT NULL,          -- JSON object: variant → decision
  checked_at     TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, experiment_id)
);
