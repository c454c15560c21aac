-- Evaluators (docs/evaluations.md): named per project, of one kind, versioned. A version is an
-- immutable set of settings; an update adds the next one.
CREATE TABLE evaluators (
  project_id   TEXT COLLATE "C" NOT NULL REFERENCES projects(id),
  evaluator_id TEXT COLLATE "C" NOT NULL,
  kind         TEXT COLLATE "C" NOT NULL CHECK (kind IN ('exact_match', 'contains', 'regex', 'json_schema', 'numeric', 'length', 'llm_judge')),
  description  TEXT COLLATE "C",
  created_at   TEXT COLLATE "C" NOT NULL,
  archived_at  TEXT COLLATE "C",
  PRIMARY KEY (project_id, evaluator_id)
);
CREATE INDEX evaluators_created ON evaluators (project_id, created_at, evaluator_id);

CREATE TABLE evaluator_versions (
  project_id   TEXT COLLATE "C" NOT NULL,
  evaluator_id TEXT COLLATE "C" NOT NULL,
  version      BIGINT NOT NULL,
  settings     TEXT COLLATE "C" NOT NULL,   -- JSON object: the kind's settings
  created_at   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, evaluator_id, version),
  FOREIGN KEY (project_id, evaluator_id) REFERENCES evaluators(project_id, evaluator_id)
);
