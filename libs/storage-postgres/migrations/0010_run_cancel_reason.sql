-- 0010_run_cancel_reason: why a run was cancelled (Run.cancel_reason: "taken:client", "interrupt:<run id>",
-- ...), written by the cancel's own terminal UPDATE with the `interrupted` status, never by a statement of
-- its own. NULL for runs that were not cancelled and for every run written before this migration. A
-- process of the previous version neither reads nor writes it during a rolling update.

ALTER TABLE runs ADD COLUMN IF NOT EXISTS cancel_reason text;
