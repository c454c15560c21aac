-- Online judges (docs/evaluations.md#online-scoring): an llm_judge evaluator scoring live runs keeps,
-- with each score, the judge's reasoning, what its model calls cost (every attempt) and their runs.
ALTER TABLE run_scores ADD COLUMN reasoning TEXT COLLATE "C";
ALTER TABLE run_scores ADD COLUMN cost_nano_usd BIGINT NOT NULL DEFAULT 0;
ALTER TABLE run_scores ADD COLUMN judge_run_ids TEXT COLLATE "C";   -- JSON array of run ids, NULL for none

-- Dataset uploads (docs/evaluations.md#uploads): items sent over many requests, staged here (not in
-- any version), then committed as ONE new version in one transaction. An upload never committed is
-- deleted once expires_at has passed (by the next upload started in any project).
CREATE TABLE dataset_uploads (
  project_id   TEXT COLLATE "C" NOT NULL,
  dataset_id   TEXT COLLATE "C" NOT NULL,
  upload_id    TEXT COLLATE "C" NOT NULL,
  item_count   BIGINT NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  expires_at   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, dataset_id, upload_id),
  FOREIGN KEY (project_id, dataset_id) REFERENCES datasets(project_id, dataset_id)
);
CREATE INDEX dataset_uploads_expiry ON dataset_uploads (expires_at);

CREATE TABLE dataset_upload_items (
  project_id   TEXT COLLATE "C" NOT NULL,
  dataset_id   TEXT COLLATE "C" NOT NULL,
  upload_id    TEXT COLLATE "C" NOT NULL,
  seq          BIGINT NOT NULL,            -- the item's place in the upload, from 1
  item_id      TEXT COLLATE "C" NOT NULL,  -- chosen when staged, kept by the committed item
  inputs       TEXT COLLATE "C" NOT NULL,  -- JSON, as dataset_items
  expected     TEXT COLLATE "C",
  metadata     TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, dataset_id, upload_id, seq),
  FOREIGN KEY (project_id, dataset_id, upload_id) REFERENCES dataset_uploads(project_id, dataset_id, upload_id)
);
