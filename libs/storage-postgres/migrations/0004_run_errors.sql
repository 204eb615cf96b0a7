-- 0004_run_errors: the error a run failed with ({error, message}, RunRepo.getError), written by the same
-- UPDATE as its terminal status. A column of the run, so erasure takes it; NULL for runs that did not
-- fail (and for rows written before this migration).

ALTER TABLE runs ADD COLUMN IF NOT EXISTS error jsonb;
