-- A version's declared variables (its contract with callers: required or optional, a default, and
-- the enum/pattern/length constraints checked on every runtime call), as a JSON object in the
-- order declared. NULL: the version declares nothing and is served exactly as before.
ALTER TABLE prompt_versions ADD COLUMN declared_variables TEXT;
