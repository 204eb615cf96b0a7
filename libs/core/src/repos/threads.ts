import type { AuthFilter } from "../filters.js";
import type { DefaultValues, Interrupt, Metadata, RunnableConfig, SortOrder, Thread, ThreadHeader, ThreadStatus } from "../model.js";
import type { ThreadValuesRef } from "../rules/thread-values.js";
import type { ExpiredThread, ThreadTtl, ThreadTtlStrategy } from "../rules/ttl.js";

export interface NewThread {
  thread_id: string;
  metadata?: Metadata;
  config?: RunnableConfig;
  status?: ThreadStatus;
  /** Defaults to now; set when restoring a snapshot. */
  created_at?: string;
  /** The thread's time-to-live (rules/ttl.ts): it expires `minutes` after its last update. Absent: never. */
  ttl?: ThreadTtl;
}

export interface ThreadPatch {
  /** Merged into the existing metadata (top-level keys replaced). */
  metadata?: Metadata;
  config?: RunnableConfig;
  status?: ThreadStatus;
  values?: DefaultValues | null;
  /** Instead of `values`: they are in this checkpoint (rules/thread-values.ts); reads return them. */
  valuesAt?: ThreadValuesRef;
  interrupts?: Record<string, Interrupt[]>;
  error?: unknown;
  /** Replaces the thread's TTL (null removes it); its clock restarts with this update. */
  ttl?: ThreadTtl | null;
}

export interface ThreadSearch {
  ids?: string[];
  /** JSONB containment on metadata. */
  metadata?: Metadata;
  /** JSONB containment on values. */
  values?: Record<string, unknown>;
  status?: ThreadStatus;
  filter?: AuthFilter;
  limit?: number;
  offset?: number;
  sort_by?: "thread_id" | "status" | "created_at" | "updated_at";
  sort_order?: SortOrder;
}

export type PruneStrategy = "delete" | "keep_latest";

/**
 * Threads. A thread's checkpoints live in the driver's checkpointer; operations that remove or copy a
 * thread handle its checkpoints too, so callers never leave orphans behind.
 */
export interface ThreadRepo {
  /**
   * Optional: the driver stores `valuesAt` (a pointer to the checkpoint holding the values, from
   * settlement or `update`) and turns it into values on every read (core's rules/thread-values.ts). The
   * engine sends it only then; to a driver without it, it writes the values themselves, O(state) a run.
   */
  readonly storesValuesAt?: boolean;
  /** `ifExists: "raise"` (default) throws `ConflictError`; `"do_nothing"` returns the existing thread. */
  create(input: NewThread, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Thread>;
  get(threadId: string): Promise<Thread | null>;
  /**
   * Optional: the thread without its state, read without reading the state (see `ThreadHeader`). Callers
   * go through `readThreadHeader`, which falls back to `get` for a driver without it.
   */
  getHeader?(threadId: string): Promise<ThreadHeader | null>;
  update(threadId: string, patch: ThreadPatch): Promise<Thread | null>;
  /** Deletes the thread, its checkpoints, runs, run results and events. */
  delete(threadId: string): Promise<boolean>;
  /** Default order: created_at desc. limit defaults to 10. */
  search(query: ThreadSearch): Promise<Thread[]>;
  count(query: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order" | "ids">): Promise<number>;
  /**
   * Copies a thread under a new id: the thread row (metadata, config, values, status), every checkpoint
   * (all namespaces, with pending writes) and every run under a new run id. Run results and internal
   * lineage follow their runs: results reattach to the new run ids with `checkpoint.thread_id` remapped,
   * and `RunInternal.taskId` is remapped through the same id map. Null if the source does not exist.
   */
  copy(sourceThreadId: string, newThreadId: string): Promise<Thread | null>;
  /**
   * `"delete"`: deletes the threads as `delete` does. `"keep_latest"`: keeps each thread, its runs and
   * results, and only the latest checkpoint of each namespace; earlier checkpoints and their writes go.
   * Unknown ids are skipped. Returns how many of the given threads were pruned.
   */
  prune(threadIds: string[], strategy: PruneStrategy): Promise<number>;
  /**
   * Optional (TTL sweeps; both or neither with `sweep`): threads whose TTL has run out at `now` and that
   * have no pending or running run, soonest expiry first, at most `limit`. Reads only.
   */
  listExpired?(now: string, limit: number): Promise<ExpiredThread[]>;
  /**
   * Optional: sweeps one thread if, checked again atomically with the sweep, its TTL has run out at `now`
   * and no run of it is pending or running. `delete`: as `delete`. `keep_latest`: as `prune` with
   * `keep_latest`, and the thread's clock restarts (`updated_at = now`). Returns the strategy applied, or
   * null when nothing was done (gone, not expired any more, busy, or swept by another process meanwhile).
   */
  sweep?(threadId: string, now: string): Promise<ThreadTtlStrategy | null>;
}

/** The thread's header through `getHeader` when the driver has it, else from a full `get`. */
export async function readThreadHeader(threads: ThreadRepo, threadId: string): Promise<ThreadHeader | null> {
  if (threads.getHeader) return threads.getHeader(threadId);
  const thread = await threads.get(threadId);
  if (!thread) return null;
  const { values: _values, interrupts: _interrupts, ...header } = thread;
  return header;
}
