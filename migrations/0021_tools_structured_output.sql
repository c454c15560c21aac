-- Tools and structured output (docs/tools-and-structured-output.md).
-- A version's model config: JSON {tools?, tool_choice?, response_format?} in OpenAI's format, NULL
-- when the version sets none of them (so a version without them reads, hashes and serves as before).
ALTER TABLE prompt_versions ADD COLUMN model_config TEXT;

-- What a run asked and got: the version's model config as sent (JSON, NULL: none), the model's tool
-- calls (JSON [{id, type, function: {name, arguments}}], NULL: none), and whether the output
-- satisfied the response_format (0/1, NULL: no json response_format, or nothing to check) with the
-- first problem found. output_valid feeds the runs metric schema_valid_rate.
ALTER TABLE runs ADD COLUMN model_config TEXT;
ALTER TABLE runs ADD COLUMN tool_calls TEXT;
ALTER TABLE runs ADD COLUMN output_valid INTEGER CHECK (output_valid IN (0, 1));
ALTER TABLE runs ADD COLUMN output_error TEXT;
