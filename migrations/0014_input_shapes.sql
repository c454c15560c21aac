-- What callers of /get_prompt and /run_prompt sent, summarised per prompt and hour: how many calls
-- sent each set of input names (a JSON array of the sorted names, or '*' for the calls whose set was
-- not kept: past the sets kept per prompt and hour, or too many or too long names), with or without
-- external_user_id. Counts are added by every flush (and every replica); rows older than 7 days are
-- deleted. Read by GET /prompts/{id}/versions/{v}/impact.
CREATE TABLE input_shapes (
  project_id    TEXT NOT NULL,
  prompt_id     TEXT NOT NULL,
  hour          TEXT NOT NULL,
  names         TEXT NOT NULL,
  with_user_id  INTEGER NOT NULL,
  calls         INTEGER NOT NULL,
  PRIMARY KEY (project_id, prompt_id, hour, names, with_user_id)
);
CREATE INDEX input_shapes_hour ON input_shapes (hour);
