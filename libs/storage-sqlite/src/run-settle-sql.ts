import type { RunSettlement } from "@agent-server/core";
import type { TableCodec } from "./sealing.js";

/** The statements of `SqliteRunRepo.settle` (runs.ts). */

/** The result's first write, only while the run exists and (owner given) its lease is the owner's. */
export const INSERT_RESULT_GUARDED_SQL = `INSERT INTO run_results (run_id, result, created_at)
  SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ? AND (? IS NULL OR lease_owner = ?))
  ON CONFLICT (run_id) DO NOTHING`;

/**
 * Settlement's thread update: status always, values (written, or a pointer to them) / interrupts / error
 * when given (`set_*`).
 */
export const SETTLE_THREAD_SQL = `UPDATE threads SET updated_at = @updated_at, status = @status,
    state_values = CASE WHEN @set_values THEN @state_values ELSE state_values END,
    values_ref = CASE WHEN @set_values THEN @values_ref ELSE values_ref END,
    interrupts = COALESCE(@interrupts, interrupts),
    error = CASE WHEN @set_error THEN @error ELSE error END
  WHERE thread_id = @thread_id RETURNING status, interrupts`;

/** `RunSettlement.thread` as the parameters of SETTLE_THREAD_SQL (throws before any write if not JSON), sealed by `threads`. */
export function threadUpdateRow(thread: NonNullable<RunSettlement["thread"]>, threads: TableCodec<"threads">) {
  return {
    status: thread.status,
    set_values: thread.values !== undefined || thread.valuesAt !== undefined ? 1 : 0,
    state_values: thread.values === undefined || thread.values === null ? null : threads.text("state_values", thread.values),
    values_ref: thread.values === undefined && thread.valuesAt !== undefined ? JSON.stringify(thread.valuesAt) : null,
    interrupts: thread.interrupts !== undefined ? threads.text("interrupts", thread.interrupts) : null,
    set_error: "error" in thread ? 1 : 0,
    error: "error" in thread ? threads.text("error", thread.error) : null,
  };
}
