-- A version's declared variables (its contract with callers: required or optional, a default, and
-- the enum/pattern/length constraints checked on every runtime call), as JSON text in the order
-- declared (text, not jsonb, so that order is kept). NULL: the version declares nothing and is
-- served exactly as before.
ALTER TABLE prompt_versions ADD COLUMN declared_variables TEXT COLLATE "C";
