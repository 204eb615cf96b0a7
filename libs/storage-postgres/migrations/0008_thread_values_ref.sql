-- 0008_thread_values_ref: a run's settlement (or a thread update) may leave the thread's values in the
-- run's last checkpoint and write only where they are (core's rules/thread-values.ts): values_ref holds
-- that pointer ({checkpoint_ns, checkpoint_id, keys}) while "values" is NULL. A read of the thread turns
-- the pointer into values, keeps them in "values" and clears values_ref (only if no newer pointer replaced
-- it). The partial index lists the threads still holding a pointer, so a search or count filtering on
-- values materializes them first by an index read, never a scan of every thread.

ALTER TABLE threads ADD COLUMN IF NOT EXISTS values_ref jsonb;
CREATE INDEX IF NOT EXISTS threads_values_ref_idx ON threads (thread_id) WHERE values_ref IS NOT NULL;
