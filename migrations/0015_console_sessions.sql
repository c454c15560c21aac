-- Console sessions (docs/console.md, "Signing in"): the console exchanges a read or admin API key
-- for a random token kept by the browser in an HttpOnly cookie. Only the token's SHA-256 is stored,
-- as for keys. A session is valid while it has not ended (sign-out), not expired, and its key is
-- neither revoked nor expired: the key is read on every request the session authenticates.
CREATE TABLE console_sessions (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  key_id      TEXT NOT NULL REFERENCES api_keys(id),
  role        TEXT NOT NULL CHECK (role IN ('read', 'admin')),
  token_hash  TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  ended_at    TEXT
);
CREATE INDEX console_sessions_expiry ON console_sessions (project_id, expires_at);
