-- 0005_run_push_registered: set on a run when an A2A push notification config is registered with it
-- (PushConfigRepo.put with `run`, in the same statement as the config's insert). Settlement's terminal
-- UPDATE returns it: a row lock orders the two writes, and the UPDATE re-reads a row it waited for, so a
-- registration that commits while the run settles is seen (a subquery on push_configs would read the
-- statement's older snapshot). Existing rows: false (their configs are found by the subquery).

ALTER TABLE runs ADD COLUMN IF NOT EXISTS push_registered boolean NOT NULL DEFAULT false;
