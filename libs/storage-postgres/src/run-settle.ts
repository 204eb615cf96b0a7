import {
  nowIso,
  type Run,
  type RunError,
  type RunSettlement,
  type RunStatus,
  type SettledRun,
  type Thread,
  type ThreadStatus,
} from "@agent-server/core";
import type pg from "pg";
import { FOREIGN_KEY_VIOLATION, Params, pgCode, query, RESULT_COLUMNS, resultValues, toDbJson, type Tables } from "./db.js";
import type { CheckpointBatches } from "./checkpoint-batches.js";
import type { CheckpointRows } from "./checkpoint-rows.js";
import type { Sealer } from "./sealing.js";

/**
 * `RunRepo.settle` on PostgreSQL: one statement. The result's INSERT (guarded by the lease), the
 * terminal UPDATE (clearing the lease with `releaseLease`) and the thread's UPDATE (only when the
 * terminal write landed: it reads the run's row from the UPDATE's RETURNING) are CTEs of one query, so
 * they commit together and cost one round trip. `runColumns` are the columns of a `Run`.
 *
 * With `after`, the run's checkpoint writes come first: once those already sent have landed, the batch
 * not yet sent (CheckpointBatches.take) joins the statement as its first CTEs, so they commit together.
 * Should that statement fail, the batch is committed alone (its failure fails the chain and is thrown)
 * and the settlement is tried again without it: the checkpoints never depend on how the settlement went.
 */
export async function settleRun(
  pool: pg.Pool,
  t: Tables,
  seal: Sealer,
  checkpoints: CheckpointBatches,
  runColumns: string,
  runId: string,
  to: RunStatus,
  options: RunSettlement,
): Promise<SettledRun | null> {
  const chain = options.after;
  const batch = chain ? await checkpoints.take(chain) : undefined;
  if (!chain || !batch) return settleAlone(pool, t, seal, runColumns, runId, to, options);
  try {
    const settled = await settleAlone(pool, t, seal, runColumns, runId, to, options, batch.rows);
    batch.resolve();
    return settled;
  } catch {
    await checkpoints.commit(chain, batch);
    return settleAlone(pool, t, seal, runColumns, runId, to, options);
  }
}

async function settleAlone(
  pool: pg.Pool,
  t: Tables,
  seal: Sealer,
  runColumns: string,
  runId: string,
  to: RunStatus,
  options: RunSettlement,
  checkpointRows?: CheckpointRows,
): Promise<SettledRun | null> {
  // Everything is serialized before the query: a value that is not JSON throws and writes nothing.
  const params = new Params([runId, to, nowIso(), errorJson(seal, options.error)]);
  const result = options.result ? params.add(seal.json("run_results", "result", options.result)) : undefined;
  const where = [`run_id = $1`];
  if (options.from) where.push(`status = ANY(${params.add([...options.from])}::text[])`);
  const owner = options.owner !== undefined ? params.add(options.owner) : undefined;
  if (owner) where.push(`lease_owner = ${owner}`);
  const ctes: string[] = [];
  if (result) {
    ctes.push(`recorded AS (
      INSERT INTO ${t.runResults} (run_id, ${RESULT_COLUMNS}, created_at)
      SELECT $1, ${resultValues(result)}, $3 WHERE EXISTS (SELECT 1 FROM ${t.runs} WHERE run_id = $1 ${owner ? `AND lease_owner = ${owner}` : ""})
      ON CONFLICT (run_id) DO NOTHING)`);
  }
  const lease = options.releaseLease && owner ? `, lease_owner = NULL, lease_expires_at = NULL` : "";
  ctes.push(`settled AS (
    UPDATE ${t.runs} SET status = $2, updated_at = $3, error = COALESCE($4::jsonb, error)${lease}
     WHERE ${where.join(" AND ")}
     RETURNING ${runColumns}, push_registered
       OR EXISTS (SELECT 1 FROM ${t.pushConfigs} p WHERE p.run_id = COALESCE(task_id, run_id)) AS push_configs)`);
  if (checkpointRows) ctes.unshift(...checkpointRows.inserts(t.schema, params.values).map((insert, i) => `checkpoint_${i} AS (${insert})`));
  let select = `SELECT settled.* FROM settled`;
  const thread = options.thread;
  if (thread) {
    const sets = [`updated_at = $3`, `status = ${params.add(thread.status)}`];
    // Values written clear a pointer; a pointer (core's rules/thread-values.ts) replaces written values.
    if (thread.values !== undefined) {
      const values = thread.values === null ? null : seal.json("threads", "values", thread.values);
      sets.push(`"values" = ${params.add(values)}::jsonb`, `values_ref = NULL`);
    } else if (thread.valuesAt !== undefined) {
      sets.push(`"values" = NULL`, `values_ref = ${params.add(toDbJson(thread.valuesAt))}::jsonb`);
    }
    if (thread.interrupts !== undefined)
      sets.push(`interrupts = ${params.add(seal.json("threads", "interrupts", thread.interrupts))}::jsonb`);
    if ("error" in thread) sets.push(`error = ${params.add(seal.json("threads", "error", thread.error))}::jsonb`);
    ctes.push(`thread AS (
      UPDATE ${t.threads} SET ${sets.join(", ")} WHERE thread_id = (SELECT thread_id FROM settled)
      RETURNING status AS thread_status, interrupts AS thread_interrupts)`);
    select = `SELECT settled.*, thread.thread_status, thread.thread_interrupts FROM settled LEFT JOIN thread ON true`;
  }
  type Row = Run & { push_configs: boolean; thread_status?: ThreadStatus | null; thread_interrupts?: Thread["interrupts"] | null };
  let row: Row | undefined;
  try {
    [row] = await query<Row>(pool, `WITH ${ctes.join(",\n")}\n${select}`, params.values);
  } catch (error) {
    // The run was deleted between the snapshot and the foreign-key check: nothing to settle.
    if (pgCode(error) === FOREIGN_KEY_VIOLATION && !checkpointRows) return null;
    throw error;
  }
  if (!row) return null;
  const { thread_status, thread_interrupts, push_configs: pushConfigs, ...run } = seal.row("runs", row);
  if (!thread) return { run, pushConfigs };
  const interrupts = (seal.open("threads", "interrupts", thread_interrupts) as Thread["interrupts"] | null | undefined) ?? {};
  return { run, thread: thread_status ? { status: thread_status, interrupts } : null, pushConfigs };
}

/** A run's error as the `error` column stores it: only its two strings (null: none). */
export function errorJson(seal: Sealer, error: RunError | undefined): string | null {
  return error ? seal.json("runs", "error", { error: String(error.error), message: String(error.message) }) : null;
}
