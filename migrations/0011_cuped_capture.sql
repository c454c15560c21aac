-- CUPED's covariate captured at first exposure (docs/results.md, "CUPED"): outcomes are timestamped by the
-- server, so a user's outcomes before their first exposure are all stored by the time the
-- assignment is written, and their sums never change afterwards. Results read them from here
-- instead of seeking each user's pre-exposure window in outcomes_person on every report.
--   pre_key: what `pre` was computed for: [cuped_days, sorted outcome event types] as JSON. NULL:
--            nothing captured (assigned before this migration, or the experiment had CUPED off).
--            Results use `pre` only when pre_key matches the experiment's settings now, and seek
--            the window as before for every other user.
--   pre:     [max(is_success), Σ numeric_value] per event type of pre_key, in its order, exactly
--            as SQLite's json_array renders them; NULL when the window holds none of those outcomes.
ALTER TABLE assignments ADD COLUMN pre_key TEXT;
ALTER TABLE assignments ADD COLUMN pre TEXT;
