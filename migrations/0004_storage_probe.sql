-- One row rewritten by /readyz while writes are failing (a full disk): the cheapest real write that
-- tells whether the storage accepts commits again.
CREATE TABLE storage_probe (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  checked_at  TEXT NOT NULL
);
