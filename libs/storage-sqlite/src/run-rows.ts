import type { Run, RunError, RunInternal, RunResult } from "@agent-server/core";
import { fromRow } from "./db.js";
import type { TableCodecs } from "./sealing.js";

/** A runs row as `SqliteRunRepo` selects it (run-sql.ts COLUMNS). */
export interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: string;
  metadata: string;
  kwargs: string;
  multitask_strategy: string;
  cancel_reason: string | null;
  attempt: number;
}

/**
 * The runs table's and run_results' JSON columns, as written and read through their codecs (sealing.ts):
 * the run repo, settlement and thread copy share it.
 */
export class RunRows {
  private readonly runs;
  private readonly results;

  constructor(codecs: TableCodecs) {
    this.runs = codecs.runs;
    this.results = codecs.run_results;
  }

  /** A `Run` never carries `attempt` (only `claimNext` reports it) nor `internal`. */
  toRun({ attempt: _attempt, internal: _internal, ...row }: RunRow & { internal?: string | null }): Run {
    return fromRow(row, { metadata: {}, kwargs: {} }, this.runs);
  }

  text(column: "metadata" | "kwargs", value: unknown): string {
    return this.runs.text(column, value);
  }

  /** The `internal` column (null: no row) as an object. */
  internalOf(text: string | null): RunInternal {
    return this.runs.value("internal", text, {});
  }

  internalText(internal: RunInternal | undefined): string | null {
    return internal ? this.runs.text("internal", internal) : null;
  }

  /** The `result` column of run_results (null: no row) as an object. */
  resultOf(text: string | null): RunResult | null {
    return this.results.value("result", text, null);
  }

  resultText(result: RunResult): string {
    return this.results.text("result", result);
  }

  /** The `error` column (null: the run did not fail) as an object. */
  errorOf(text: string | null): RunError | null {
    return this.runs.value("error", text, null);
  }

  /** A run's error as the `error` column stores it: only its two strings. */
  errorText(error: RunError | undefined): string | null {
    return error ? this.runs.text("error", { error: String(error.error), message: String(error.message) }) : null;
  }
}
