/** SQL of `SqliteRunRepo` (runs.ts) that reads runs: the Run columns and the A2A task lineage queries. */

/** The columns a `Run` is built from: never `internal`, never a result. */
export const COLUMNS =
  "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, cancel_reason, attempt";

/**
 * A2A task lineage queries. `task_root` / `task_id` are generated from `internal` (migration 4). The
 * partial indexes runs_task_roots (assistant_id, created_at, seq) and runs_task_continuations (task_id,
 * created_at, seq) hold only the matching runs: those queries walk their index (backwards for newest
 * first, forwards for listContinuations) and stop after offset + limit rows. A context's roots walk its
 * thread's runs newest first (runs_thread_created) and skip the runs that are not roots of the assistant:
 * O(offset + limit + the thread's other runs passed on the way); a context's runs are its tasks' own.
 * Exported for the query-plan test.
 */
export const TASK_ROOTS_SQL = `SELECT ${COLUMNS} FROM runs INDEXED BY runs_task_roots
  WHERE task_root = 1 AND assistant_id = ? ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`;
export const TASK_ROOTS_OF_THREAD_SQL = `SELECT ${COLUMNS} FROM runs INDEXED BY runs_thread_created
  WHERE task_root = 1 AND assistant_id = ? AND thread_id = ? ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`;
export const LATEST_CONTINUATION_SQL = `SELECT ${COLUMNS} FROM runs INDEXED BY runs_task_continuations
  WHERE task_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1`;
/** The run, its internal and its latest continuation (columns prefixed `latest_`) in one row. */
export const TASK_SQL = `SELECT ${COLUMNS.split(", ")
  .map((c) => `r.${c}`)
  .join(", ")}, r.internal, ${COLUMNS.split(", ")
  .map((c) => `c.${c} AS latest_${c}`)
  .join(", ")}
  FROM runs r LEFT JOIN runs c ON c.run_id = (
    SELECT x.run_id FROM runs x INDEXED BY runs_task_continuations WHERE x.task_id = r.run_id ORDER BY x.created_at DESC, x.seq DESC LIMIT 1)
  WHERE r.run_id = ?`;
export const LIST_CONTINUATIONS_SQL = `SELECT ${COLUMNS} FROM runs INDEXED BY runs_task_continuations
  WHERE task_id = ? ORDER BY created_at, seq LIMIT ?`;
