-- Writes too large for one short transaction (docs/evaluations.md, "Large writes"): an evaluation's
-- work rows and a dataset version's items are written over many transactions of a few thousand
-- rows each, so the event loop is free between them, and made visible by a last, small one.
--
-- An evaluation being created: until its last transaction, staged_until is set and no read sees
-- it. Its writer moves staged_until on with every slice; once that time has passed (the writer
-- died), the evaluation can never be finished, and housekeeping deletes it and its rows.
ALTER TABLE evaluations ADD COLUMN staged_until TEXT COLLATE "C";
CREATE INDEX evaluations_staged ON evaluations (staged_until) WHERE staged_until IS NOT NULL;

-- A dataset version being written: its number, the writer holding it and until when. Its item rows
-- are already in dataset_items (added_in, or removed_in, = staging_version), but no read asks for a
-- version that has no dataset_versions row yet. Other versions of the dataset wait until it is
-- done; once staged_until has passed, its rows are taken back before the number is used again.
ALTER TABLE datasets ADD COLUMN staging_version BIGINT;
ALTER TABLE datasets ADD COLUMN staging_owner TEXT COLLATE "C";
ALTER TABLE datasets ADD COLUMN staged_until TEXT COLLATE "C";
CREATE INDEX datasets_staged ON datasets (staged_until) WHERE staged_until IS NOT NULL;
