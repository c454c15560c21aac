-- Per-key request budget: NULL follows the server's default (PROMPTLINE_RATE_LIMIT_PER_MINUTE),
-- 0 means no limit for this key, n means n requests a minute.
ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute INTEGER CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute >= 0);
