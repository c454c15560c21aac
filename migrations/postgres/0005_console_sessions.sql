-- As SQLite's 0015: console sessions, the token stored only as its SHA-256; valid while not ended,
-- not expired, and its key neither revoked nor expired.
CREATE TABLE console_sessions (
  id          TEXT COLLATE "C" PRIMARY KEY,
  project_id  TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  key_id      TEXT COLLATE "C" NOT NULL REFERENCES api_keys(id),
  role        TEXT COLLATE "C" NOT NULL CHECK (role IN ('read', 'admin')),
  token_hash  TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at  TEXT COLLATE "C" NOT NULL,
  expires_at  TEXT COLLATE "C" NOT NULL,
  ended_at    TEXT COLLATE "C"
);
CREATE INDEX console_sessions_expiry ON console_sessions (project_id, expires_at);
