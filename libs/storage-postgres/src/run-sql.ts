import { ERASED_DELIVERY_STATUSES, RUN_DEPENDENTS, type RunDependent } from "@agent-server/core";
import { query, type Queryable, type Tables } from "./db.js";

/** The columns of `Run`: internal, lease and attempt columns are never selected into a Run. */
export const RUN_COLUMNS = `run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, cancel_reason`;
export const prefixed = (alias: string): string =>
  RUN_COLUMNS.split(", ")
    .map((c) => `${alias}.${c}`)
    .join(", ");

/**
 * The condition of the partial index runs_active_idx (migration 0012), to repeat verbatim beside a status
 * predicate with a parameter: the planner uses a partial index only when it can prove the query implies it.
 */
export const ACTIVE_RUNS = "status IN ('pending', 'running')";

/**
 * A2A task lineage queries over the columns generated from `internal` (migration 0002) and their indexes:
 * runs_task_roots_idx (assistant_id, created_at DESC, seq DESC, partial), runs_task_continuations_idx
 * (task_id, created_at DESC, seq DESC, partial), and for a context's roots either that first one or the
 * thread's runs (runs_thread_created_idx), whichever the planner finds smaller: an index range read in
 * order (backwards for listContinuations, oldest first), stopped at offset + limit. `runs` is the runs
 * table. Exported for the query-plan test.
 */
export const taskSql = (runs: string) => ({
  roots: `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE task_root AND assistant_id = $1
          ORDER BY created_at DESC, seq DESC LIMIT $2 OFFSET $3`,
  rootsOfThread: `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE task_root AND assistant_id = $1 AND thread_id = $4
          ORDER BY created_at DESC, seq DESC LIMIT $2 OFFSET $3`,
  latestContinuation: `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE task_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1`,
  // The run, its internal and its latest continuation (columns prefixed `latest_`), one row; $2 is $1 as task_id stores it.
  task: `SELECT ${prefixed("r")}, r.internal, ${RUN_COLUMNS.split(", ")
    .map((c) => `c.${c} AS latest_${c}`)
    .join(", ")}
    FROM ${runs} r LEFT JOIN LATERAL (
      SELECT ${RUN_COLUMNS} FROM ${runs} WHERE task_id = $2 ORDER BY created_at DESC, seq DESC LIMIT 1) c ON true
    WHERE r.run_id = $1`,
  listContinuations: `SELECT ${RUN_COLUMNS} FROM ${runs} WHERE task_id = $1 ORDER BY created_at, seq LIMIT $2`,
});

/** Where each of a run's dependents (core's run cascade) lives; $1 is the erased run ids. */
const dependentSql = (t: Tables): Record<RunDependent, string[]> => ({
  result: [], // ON DELETE CASCADE from runs
  pushConfigs: [], // ON DELETE CASCADE from runs
  events: [`DELETE FROM ${t.runEvents} WHERE run_id = ANY($1::text[])`, `DELETE FROM ${t.runEventCounters} WHERE run_id = ANY($1::text[])`],
  deliveries: [`DELETE FROM ${t.deliveries} WHERE run_id = ANY($1::text[]) AND status = ANY('{${ERASED_DELIVERY_STATUSES.join(",")}}')`],
});

/** Erases the runs matching `condition` (parameters `values`) with their dependents, in the caller's transaction; returns their ids. */
export async function deleteRunsWhere(db: Queryable, t: Tables, condition: string, values: unknown[]): Promise<string[]> {
  const rows = await query<{ run_id: string }>(db, `DELETE FROM ${t.runs} WHERE ${condition} RETURNING run_id`, values);
  const ids = rows.map((r) => r.run_id);
  if (ids.length) {
    const sql = dependentSql(t);
    for (const dependent of RUN_DEPENDENTS) for (const statement of sql[dependent]) await query(db, statement, [ids]);
  }
  return ids;
}
