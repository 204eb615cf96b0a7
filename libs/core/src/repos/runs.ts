import type { Metadata, MultitaskStrategy, Run, RunInternal, RunKwargs, RunStatus } from "../model.js";
import type { RunResult } from "../result.js";

export interface NewRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status?: RunStatus;
  metadata?: Metadata;
  kwargs?: RunKwargs;
  multitask_strategy?: MultitaskStrategy;
  /** Defaults to now; a future time defers the run (`after_seconds`). */
  created_at?: string;
}

export interface RunSearch {
  /** Omitted: runs of every thread (bulk cancel by status). */
  thread_id?: string;
  status?: RunStatus | RunStatus[];
  /** JSONB containment on metadata. */
  metadata?: Metadata;
  limit?: number;
  offset?: number;
}

export interface ClaimedRun {
  run: Run;
  /** 1 for the first execution, 2 after one retry, ... */
  attempt: number;
}

/**
 * Runs. A run's status moves only through `transition` (compare-and-set), so a terminal status is
 * written once however many paths race to end it. Reads never include results or internals.
 */
export interface RunRepo {
  /**
   * Inserts a run. Throws `NotFoundError` if the thread does not exist. With `rejectIfThreadActive`,
   * throws `ConflictError` instead of inserting when the thread already has a pending or running run;
   * the check and the insert are one atomic step, also across processes sharing the database.
   */
  create(input: NewRun, options?: { internal?: RunInternal; rejectIfThreadActive?: boolean }): Promise<Run>;
  /** With `threadId`, a run of another thread reads as null. */
  get(runId: string, threadId?: string): Promise<Run | null>;
  /** Newest first (created_at desc, then insertion order desc). limit defaults to 10. */
  search(query: RunSearch): Promise<Run[]>;
  /**
   * Sets the status (and updated_at) if the current status is one of `from` (any, when omitted).
   * Returns the updated run, or null if the run is unknown or the guard failed.
   */
  transition(runId: string, to: RunStatus, options?: { from?: readonly RunStatus[] }): Promise<Run | null>;
  /**
   * Atomically takes the oldest eligible pending run (created_at <= now, and no running run on its
   * thread), marks it running under a lease held by `owner` until now + leaseMs, and counts the attempt.
   * Two callers, in one process or several, never claim the same run.
   */
  claimNext(options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedRun | null>;
  /** Extends the leases `owner` holds on these running runs; returns how many were extended. */
  renewLeases(runIds: string[], owner: string, leaseMs: number): Promise<number>;
  /** Running runs whose lease ended before `now` (their worker died). Oldest lease first. */
  listExpiredLeases(now: string, limit: number): Promise<Run[]>;
  /**
   * Deletes the run with its result and events. With `checkpoints: true` (rollback), also deletes the
   * checkpoints the run wrote (checkpoint metadata `run_id`) and their pending writes.
   */
  delete(runId: string, options?: { checkpoints?: boolean }): Promise<boolean>;
  /** Server-private facts set at creation; null for an unknown run. */
  getInternal(runId: string): Promise<RunInternal | null>;
  /**
   * Stores what the run produced. No-op for an unknown or deleted run. First write wins, atomically:
   * a later write for the same run changes nothing. The stored value is a wire-normalized copy
   * (`toWireJson`); a value that cannot be serialized throws `WireSerializationError` and stores nothing.
   * Optional: a driver (or wrapper over one) without it cannot serve A2A.
   */
  recordResult?(runId: string, result: RunResult): Promise<void>;
  /** The stored result as a fresh copy, or null when there is none. Optional, like `recordResult`. */
  getResult?(runId: string): Promise<RunResult | null>;
  /**
   * A2A tasks: first runs of `assistant_id` whose internal `captureResult` is set and `taskId` is not,
   * newest first (created_at desc, then insertion order desc), optionally of one thread. Served by an
   * index, never a scan of unrelated runs. limit defaults to 10.
   */
  searchTaskRoots(query: { assistant_id: string; thread_id?: string; limit?: number; offset?: number }): Promise<Run[]>;
  /** The newest run whose internal `taskId` is `taskId` (the task's latest continuation), or null. Indexed. */
  latestContinuation(taskId: string): Promise<Run | null>;
  /**
   * Every run whose internal `taskId` is `taskId` (the task's continuations), oldest first (created_at,
   * then insertion order), at most `limit` (default 100). Same index as `latestContinuation`.
   */
  listContinuations(taskId: string, options?: { limit?: number }): Promise<Run[]>;
}
