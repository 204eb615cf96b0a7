-- 0013_lean_thread_indexes: SQLite's migration 16 on this driver, where PostgreSQL has the same indexes.
-- - runs_assistant_idx: no query reads runs by assistant alone (an assistant's task roots have
--   runs_task_roots_idx; deleting an assistant leaves its runs), yet every row version of a run wrote it;
-- - threads_status_idx keeps only the threads that are not idle: a settlement writes its thread idle (a new
--   row version, which had an entry here) and now adds none. A search for a status other than idle names
--   the condition so the planner may use it; one for idle threads walks the creation order.
-- threads_values_ref_idx stays: here a values filter is served by threads_values_gin, and listing the
-- threads holding a pointer by a scan would make that search O(threads).

DROP INDEX IF EXISTS runs_assistant_idx;
DROP INDEX IF EXISTS threads_status_idx;
CREATE INDEX IF NOT EXISTS threads_status_idx ON threads (status, created_at DESC) WHERE status <> 'idle';
