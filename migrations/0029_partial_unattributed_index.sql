-- The count of a prompt's unattributed outcomes (results: outcomes that reached no experiment during
-- its window) reads only unattributed outcomes: its index holds only those, so an outcome that an
-- experiment claims (the common case while one runs) writes one B-tree fewer.
DROP INDEX outcomes_unattributed;
CREATE INDEX outcomes_unattributed ON outcomes (project_id, prompt_id, created_at) WHERE attributed_by = 'none';
