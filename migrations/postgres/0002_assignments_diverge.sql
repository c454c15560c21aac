-- As SQLite's 0012: set once a paused experiment's update can move users already assigned (the SDKs
-- then ask the server for this experiment instead of assigning locally). Boolean 0/1.
ALTER TABLE experiments ADD COLUMN assignments_diverge BIGINT NOT NULL DEFAULT 0;
