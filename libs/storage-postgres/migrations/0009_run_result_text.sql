-- 0009_run_result_text: a run's result as the very JSON text it was written as. jsonb keeps the value but
-- not its text (it reorders object keys: shorter first, then bytewise), while a durable A2A result must
-- read back as the document it was first answered as: clients hash, cache and sign what they receive.
-- A json column stores its input verbatim (validated, not reparsed). Writers fill both columns from the
-- one parameter: "result" stays the jsonb that processes of the previous version read during a rolling
-- update. Readers take result_text, and "result" only for rows without it (written before this
-- migration, or by a process of the previous version).

ALTER TABLE run_results ADD COLUMN IF NOT EXISTS result_text json;
