-- Audit log: every management change, written in the same transaction as the change itself.
CREATE TABLE audit_log (
  project_id   TEXT NOT NULL,
  id           TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  key_id       TEXT,            -- the API key that made the change; NULL for the CLI (it uses none)
  key_name     TEXT NOT NULL,   -- its name then ("cli" for the CLI)
  action       TEXT NOT NULL,   -- e.g. prompt.version_created, experiment.stopped, key.revoked
  target_type  TEXT NOT NULL,   -- prompt, experiment, key, user
  target_id    TEXT NOT NULL,
  before       TEXT,            -- JSON of the object before the change (NULL when it is new)
  after        TEXT,            -- JSON after (NULL when it is gone)
  PRIMARY KEY (project_id, id)
);
CREATE INDEX audit_created ON audit_log (project_id, created_at, id);
CREATE INDEX audit_target_list ON audit_log (project_id, target_id, created_at, id);
CREATE INDEX audit_action_list ON audit_log (project_id, action, created_at, id);
CREATE INDEX audit_key_list ON audit_log (project_id, key_id, created_at, id) WHERE key_id IS NOT NULL;
