-- One row that /readyz writes while writes are failing (a full disk): a real commit of 1 MiB (then
-- released) is what tells that the storage has room again.
CREATE TABLE storage_probe (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  checked_at  TEXT NOT NULL,
  room        BLOB
);
