-- As SQLite's 0014: per prompt and hour, how many calls sent each set of input names ('*': a set
-- not kept), with or without external_user_id (0/1). Counts add up across replicas; pruned after 7 days.
CREATE TABLE input_shapes (
  project_id    TEXT COLLATE "C" NOT NULL,
  prompt_id     TEXT COLLATE "C" NOT NULL,
  hour          TEXT COLLATE "C" NOT NULL,
  names         TEXT COLLATE "C" NOT NULL,
  with_user_id  BIGINT NOT NULL,
  calls         BIGINT NOT NULL,
  PRIMARY KEY (project_id, prompt_id, hour, names, with_user_id)
);
CREATE INDEX input_shapes_hour ON input_shapes (hour);
