-- Set once an update of a paused experiment that already assigned users changed its seed, weights,
-- coverage or variant order so that the hash may now put one of those users in another variant (or
-- none) than the one stored for them. The stored variant always wins; the flag tells the client SDKs
-- (`GET /sdk/bundle`, `remote_only`) that they cannot reproduce this experiment's assignments from
-- the hash alone, and must ask the server. It never goes back to 0: the users stay assigned.
ALTER TABLE experiments ADD COLUMN assignments_diverge INTEGER NOT NULL DEFAULT 0;
