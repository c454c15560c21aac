-- Datasets (docs/evaluations.md): named per project, versioned. A version is never copied: each
-- item row says in which version it was added and in which it was removed (NULL: still there), so
-- version v holds the items with added_in <= v AND (removed_in IS NULL OR removed_in > v). Appending
-- a thousand items to a dataset of a million writes a thousand rows; an item keeps its item_id in
-- every version, which is what pairs two versions' scores item by item.
CREATE TABLE datasets (
  project_id   TEXT NOT NULL REFERENCES projects(id),
  dataset_id   TEXT NOT NULL,
  description  TEXT,
  created_at   TEXT NOT NULL,
  archived_at  TEXT,
  PRIMARY KEY (project_id, dataset_id)
);
CREATE INDEX datasets_created ON datasets (project_id, created_at, dataset_id);

CREATE TABLE dataset_versions (
  project_id   TEXT NOT NULL,
  dataset_id   TEXT NOT NULL,
  version      INTEGER NOT NULL,
  -- How it was made: items appended, the item set replaced, one item deleted, or items made from runs.
  source       TEXT NOT NULL CHECK (source IN ('append', 'replace', 'delete', 'from_runs')),
  item_count   INTEGER NOT NULL,
  added        INTEGER NOT NULL,
  removed      INTEGER NOT NULL,
  -- JSON: what made it (from_runs: the filters and the runs matched), else NULL.
  details      TEXT,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (project_id, dataset_id, version),
  FOREIGN KEY (project_id, dataset_id) REFERENCES datasets(project_id, dataset_id)
);

CREATE TABLE dataset_items (
  project_id     TEXT NOT NULL,
  dataset_id     TEXT NOT NULL,
  item_id        TEXT NOT NULL,
  -- The item's place in every version it is in: versions list items in this order.
  seq            INTEGER NOT NULL,
  inputs         TEXT NOT NULL,   -- JSON object: the prompt's variables
  expected       TEXT,            -- JSON value (text is a JSON string), NULL when none
  metadata       TEXT NOT NULL,   -- JSON object
  source_run_id  TEXT,            -- the run it was made from (from_runs), else NULL
  added_in       INTEGER NOT NULL,
  removed_in     INTEGER,
  PRIMARY KEY (project_id, dataset_id, item_id),
  FOREIGN KEY (project_id, dataset_id) REFERENCES datasets(project_id, dataset_id)
);
CREATE UNIQUE INDEX dataset_items_seq ON dataset_items (project_id, dataset_id, seq);
