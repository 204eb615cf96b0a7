-- 0012_lean_run_indexes: fewer index entries for every run (SQLite's migration 15 on this driver). A run's
-- status changes three times (pending or running, then its end), and each change is a new row version with
-- an entry in every index (PostgreSQL cannot update in place while an indexed column, or one in a partial
-- index's predicate, changes): these indexes served lookups that are rare or can walk a smaller index.
-- - runs_active_idx replaces runs_status_idx, runs_pending_claim_idx and runs_lease_expiry_idx: the claim,
--   the pending count, the lease walks and the cancel-by-status search all ask for pending or running runs
--   (their queries name `status IN ('pending', 'running')` so the planner may use it); its entries exist
--   only while a run is active;
-- - runs_created_idx: no route lists runs across threads without a status (such a search scans);
-- - runs_task_roots_thread_idx: a context's task roots walk its thread's runs (runs_thread_created_idx);
-- - runs_metadata_gin: no route searches runs by metadata (RunRepo.search with metadata filters the rows
--   its other predicates leave).
-- Measured on the bench (A2A sends at 16 in flight): WAL records per message 86 -> 77.

DROP INDEX IF EXISTS runs_status_idx;
DROP INDEX IF EXISTS runs_pending_claim_idx;
DROP INDEX IF EXISTS runs_lease_expiry_idx;
DROP INDEX IF EXISTS runs_created_idx;
DROP INDEX IF EXISTS runs_task_roots_thread_idx;
DROP INDEX IF EXISTS runs_metadata_gin;
CREATE INDEX IF NOT EXISTS runs_active_idx ON runs (status, created_at, seq) WHERE status IN ('pending', 'running');
