-- Run text retention also drops the stored answers of idempotent requests (a /run_prompt answer
-- holds the model's output): found by age, per project.
CREATE INDEX idempotency_created ON idempotency_keys (project_id, created_at);
