-- Where a version came from when a push of prompt files made it (docs/prompts-as-code.md): the
-- file's path in its Git repository, the commit and its author. NULL for versions made any other way.
-- content_hash: sha256 of the canonical JSON of the version's content (src/promptFiles/hash.ts),
-- so a push can tell that a file's content is already a version without comparing field by field;
-- NULL for versions stored before this migration (the hash is then computed from the content).
ALTER TABLE prompt_versions ADD COLUMN source_path TEXT COLLATE "C";
ALTER TABLE prompt_versions ADD COLUMN source_commit TEXT COLLATE "C";
ALTER TABLE prompt_versions ADD COLUMN source_author TEXT COLLATE "C";
ALTER TABLE prompt_versions ADD COLUMN content_hash TEXT COLLATE "C";
