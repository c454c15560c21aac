-- Webhooks: endpoints a project registers, and the durable queue of deliveries to them.
CREATE TABLE webhooks (
  project_id   TEXT NOT NULL,
  id           TEXT NOT NULL,
  url          TEXT NOT NULL,
  events       TEXT NOT NULL,            -- JSON array of event types
  description  TEXT NOT NULL DEFAULT '',
  secret       TEXT NOT NULL,            -- signs every delivery; shown once, kept to sign
  enabled      INTEGER NOT NULL DEFAULT 1,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
);

-- One row per event and endpoint, written in the transaction of the change that caused the event.
CREATE TABLE webhook_deliveries (
  project_id        TEXT NOT NULL,
  id                TEXT NOT NULL,
  webhook_id        TEXT NOT NULL,
  event_id          TEXT NOT NULL,       -- the same for every endpoint the event goes to
  event_type        TEXT NOT NULL,
  payload           TEXT NOT NULL,       -- the exact JSON body sent (and signed)
  status            TEXT NOT NULL,       -- pending, delivered, failed
  attempts          INTEGER NOT NULL DEFAULT 0,
  next_attempt_at   TEXT,                -- pending only: when it is due (or when a claimed attempt's lease ends)
  last_attempt_at   TEXT,
  last_status_code  INTEGER,
  last_error        TEXT,
  created_at        TEXT NOT NULL,
  finished_at       TEXT,                -- delivered or given up
  PRIMARY KEY (project_id, id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (project_id, webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

-- What the last look at a running experiment saw, so srm_detected and decision_changed fire on a change only.
CREATE TABLE experiment_signals (
  project_id     TEXT NOT NULL,
  experiment_id  TEXT NOT NULL,
  srm_flagged    INTEGER NOT NULL,
  decisions      TEXT NOT NULL,          -- JSON object: variant → decision
  checked_at     TEXT NOT NULL,
  PRIMARY KEY (project_id, experiment_id)
);
