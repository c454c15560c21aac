-- A prompt whose versions are authored in a Git repository (prompt files, `promptline prompts push`):
-- the console warns before a version is created or a label moved there, since such an edit shows up
-- as a conflict in the next `promptline prompts diff`. Only a mark: the API accepts edits either way.
-- A boolean as 0/1, as every boolean of this schema (so that `db copy` moves it as is).
ALTER TABLE prompts ADD COLUMN managed_in_git BIGINT NOT NULL DEFAULT 0 CHECK (managed_in_git IN (0, 1));
