-- 0002_run_task_lineage: A2A task lineage as columns generated from runs.internal, so every writer (run
-- create, thread copy with its remapped taskId, an older process that knows nothing of these columns)
-- keeps them right, and rows written before this migration get them when it runs (ADD COLUMN computes
-- them for existing rows). task_id is the stored (NUL-encoded) text of internal.taskId when it is a string.
-- The partial indexes hold only task roots / continuations, newest first, so searchTaskRoots and
-- latestContinuation read an index range and stop at the limit, never touching unrelated runs.

ALTER TABLE runs ADD COLUMN IF NOT EXISTS task_id text
  GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(internal -> 'taskId') = 'string' THEN internal ->> 'taskId' END) STORED;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS task_root boolean NOT NULL
  GENERATED ALWAYS AS (
    COALESCE(internal -> 'captureResult' = 'true'::jsonb, false)
    AND jsonb_typeof(internal -> 'taskId') IS DISTINCT FROM 'string'
  ) STORED;

CREATE INDEX IF NOT EXISTS runs_task_roots_idx ON runs (assistant_id, created_at DESC, seq DESC) WHERE task_root;
CREATE INDEX IF NOT EXISTS runs_task_roots_thread_idx ON runs (assistant_id, thread_id, created_at DESC, seq DESC) WHERE task_root;
CREATE INDEX IF NOT EXISTS runs_task_continuations_idx ON runs (task_id, created_at DESC, seq DESC) WHERE task_id IS NOT NULL;
