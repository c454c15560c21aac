-- Stop-and-ship: the version the `production` label was moved to when the experiment stopped, in
-- the same transaction as the stop. NULL: stopped without shipping (or not stopped).
ALTER TABLE experiments ADD COLUMN shipped_version INTEGER;
