import type {
  DefaultValues,
  Interrupt,
  Metadata,
  MultitaskStrategy,
  Run,
  RunError,
  RunInternal,
  RunKwargs,
  RunStatus,
  Thread,
  ThreadStatus,
} from "../model.js";
import type { RunResult } from "../result.js";
import type { WriteChain } from "../queued-checkpoints.js";
import type { ThreadValuesRef } from "../rules/thread-values.js";
import type { NewThread } from "./threads.js";

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
  /** A run created already cancelled (a snapshot import of one): why (`Run.cancel_reason`). */
  cancel_reason?: string | null;
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
  /**
   * The run's `internal` marker as stored (`{}` when none), read by the claim itself so the executor does
   * not read the run again; a driver without it leaves it out and the engine asks `getInternal`.
   */
  internal?: RunInternal;
  /**
   * False when the claim saw no other run it could have taken (so a pool need not ask again until it is
   * told of new work); true or absent when there may be more.
   */
  more?: boolean;
}

/**
 * `RunRepo.create`'s `claim`: the run is inserted already claimed by `owner`, as `claimNext` would have
 * claimed it, so a process with a free worker executes the run it admits without the queue's round trip.
 */
export interface RunClaim {
  owner: string;
  leaseMs: number;
  /**
   * The caller created the run's thread in this call under an id nobody else has seen yet (an A2A message
   * without a context, a stateless run): no other run of it can exist or be created meanwhile, so the
   * driver may insert the run claimed without locking or checking the thread.
   */
  newThread?: boolean;
}

/** `RunRepo.create`'s options (and `createWithThread`'s). */
export interface RunCreateOptions {
  internal?: RunInternal;
  rejectIfThreadActive?: boolean;
  error?: RunError;
  claim?: RunClaim;
}

/** A running run held under a lease (`claimNext`), as start-up recovery sees it. */
export interface RunLease {
  run: Run;
  /** The `owner` that claimed it. */
  owner: string;
  /** When the lease ends unless renewed (ISO time). */
  expires_at: string;
  /** Executions so far, this one included. */
  attempt: number;
}

/**
 * Which lapsed claim `requeue` may take back; every condition given must hold. `expiredBefore`: the
 * lease ended before this time (a reaper's view: the worker stopped renewing). `owner`: the lease is
 * still held by this owner (start-up recovery: that process is known to be gone).
 */
export interface RequeueGuard {
  expiredBefore?: string;
  owner?: string;
}

/** What `RunRepo.settle` writes besides the terminal status. */
export interface RunSettlement {
  from?: readonly RunStatus[];
  owner?: string;
  error?: RunError;
  /** The run's result (A2A), recorded before the status. */
  result?: RunResult;
  /**
   * The run's thread after the run (no metadata or config: those are the caller's). Its values are either
   * written (`values`) or left in the run's last checkpoint (`valuesAt`, rules/thread-values.ts): a later
   * read of the thread returns them as if written. At most one of the two.
   */
  thread?: {
    status: ThreadStatus;
    values?: DefaultValues | null;
    valuesAt?: ThreadValuesRef;
    interrupts?: Record<string, Interrupt[]>;
    error?: unknown;
  };
  /** Clears `owner`'s lease with the terminal write (the executor is done with the run). */
  releaseLease?: boolean;
  /**
   * The run's own checkpoint writes, queued through the driver's saver (a QueueingCheckpointSaver) before
   * this write: the settlement commits with or after them (SQLite: the same commit queue; PostgreSQL: the
   * batch not yet sent joins its statement) and fails with the chain's failure instead of settling a run
   * whose checkpoints did not land. Other drivers never get one.
   */
  after?: WriteChain;
}

/** What `RunRepo.getTask` reads in one go. */
export interface TaskRuns {
  run: Run;
  internal: RunInternal;
  /** The task's newest continuation, null when it has none. */
  latest: Run | null;
}

/** A run whose terminal write `RunRepo.settle` made. */
export interface SettledRun {
  run: Run;
  /** With `thread`: the thread's status and interrupts after the update, null when the thread is gone. */
  thread?: Pick<Thread, "status" | "interrupts"> | null;
  /**
   * Whether, as of the terminal write, the run's A2A task (internal `taskId`, else the run itself) has push
   * notification configs, or one was registered with this run (`PushConfigRepo.put` with `run`, which a
   * settle racing it still sees). False: no notification to send. Absent: the driver does not say.
   */
  pushConfigs?: boolean;
}

/**
 * Runs. A run's status moves only through `transition` (compare-and-set), so a terminal status is
 * written once however many paths race to end it. Reads never include results, errors or internals.
 */
export interface RunRepo {
  /**
   * Inserts a run. Throws `NotFoundError` if the thread does not exist. With `rejectIfThreadActive`,
   * throws `ConflictError` instead of inserting when the thread already has a pending or running run;
   * the check and the insert are one atomic step, also across processes sharing the database.
   * `error` stores a run's error with the run (a snapshot import of a failed run).
   *
   * `claim` (for a `pending` run due now): in the same atomic step, serialized with every other creator
   * and claimer of the thread's runs across processes, the run is inserted claimed, as `claimNext` would
   * claim it — `running` under a lease held by `claim.owner` until now + `leaseMs`, attempt 1, its thread
   * marked `busy` — when no other run of the thread is pending or running or still holds a live lease (a
   * cancelled run unwinding in its executor). Otherwise it is inserted `pending` as without `claim` (with
   * `rejectIfThreadActive` and an active run: `ConflictError`, nothing inserted). The returned run's status
   * says which. A driver may ignore `claim` (its runs are then always inserted `pending`, and the engine's
   * claim loop takes them).
   */
  create(input: NewRun, options?: RunCreateOptions): Promise<Run>;
  /**
   * Creates `thread` and the run `input` on it (`input.thread_id` is `thread.thread_id`) in one
   * transaction: both are written or neither is. The thread is written as `ThreadRepo.create` writes it
   * (metadata, config, ttl, created_at), except its status: `busy` when the run is inserted claimed (the
   * run's `claim`, as `create` applies it: on a thread that has no other run, a pending run due now is
   * always claimed), else `thread.status` (default `idle`). The run is written as `create` writes it,
   * with the same options (`rejectIfThreadActive` holds trivially).
   * - The thread id is taken: throws `ThreadExistsError` (a `ConflictError`); nothing is written and the
   *   existing thread is left as it is.
   * - The run cannot be inserted (its id is taken: `ConflictError`; a value that cannot be serialized:
   *   `WireSerializationError`): throws, and the thread is not written either.
   * Optional: without it, callers create the thread (`ThreadRepo.create`) and then the run (`create`), two
   * writes, and remove the thread again when the run cannot be inserted. A wrapper over a driver without it
   * has none.
   */
  createWithThread?(thread: NewThread, input: NewRun, options?: RunCreateOptions): Promise<Run>;
  /** With `threadId`, a run of another thread reads as null. */
  get(runId: string, threadId?: string): Promise<Run | null>;
  /** Newest first (created_at desc, then insertion order desc). limit defaults to 10. */
  search(query: RunSearch): Promise<Run[]>;
  /**
   * Sets the status (and updated_at) if the current status is one of `from` (any, when omitted) and, with
   * `owner`, only while `owner` holds the run's lease (an executor's terminal write: a stale executor whose
   * run was requeued and claimed by another owner changes nothing). Returns the updated run, or null if the
   * run is unknown or a guard failed. With `error`, the same write stores it as the run's error
   * (`getError`): it is stored exactly when the status is; a transition without `error` leaves a stored
   * error as it is. `cancelReason` likewise: written by the same write as the status (a cancel's
   * `interrupted`), kept as it is by a transition without one. The lease is left as it is: a run cancelled
   * while it executes stays held by its executor until the executor releases it (`releaseLease`) or the
   * lease lapses.
   */
  transition(
    runId: string,
    to: RunStatus,
    options?: { from?: readonly RunStatus[]; owner?: string; error?: RunError; cancelReason?: string },
  ): Promise<Run | null>;
  /**
   * Atomically takes the oldest eligible pending run (created_at <= now, and no other run of its thread
   * running or held under a live lease, whatever its status: a cancelled run still unwinding in its
   * executor keeps its thread), marks it running under a lease held by `owner` until now + leaseMs,
   * counts the attempt, and marks its thread `busy` (in the same write: an executor needs no second one).
   * Two callers, in one process or several, never claim the same run.
   */
  claimNext(options: { owner: string; leaseMs: number; now?: string }): Promise<ClaimedRun | null>;
  /** Extends the leases `owner` holds on these running runs; returns how many were extended. */
  renewLeases(runIds: string[], owner: string, leaseMs: number): Promise<number>;
  /** Who holds the run's lease and until when, whatever its status; null when nobody does (or no such run). */
  getLease(runId: string): Promise<{ owner: string; expires_at: string } | null>;
  /**
   * The executor is done with a run that is no longer `running` (its settlement ended): clears the lease
   * if `owner` still holds it, freeing the run's thread for its next run. Returns whether it did.
   */
  releaseLease(runId: string, owner: string): Promise<boolean>;
  /** Running runs whose lease ended before `now` (their worker died). Oldest lease first. */
  listExpiredLeases(now: string, limit: number): Promise<Run[]>;
  /** Running runs held under a lease, whoever holds it, with owner, expiry and attempts. Oldest lease first. */
  listLeases(limit: number): Promise<RunLease[]>;
  /**
   * Puts a run whose worker is gone back in the queue: `running` -> `pending`, lease cleared, attempts
   * kept (the next `claimNext` counts the next attempt). Compare-and-set: only while the run is still
   * `running` under a lease that meets `guard` (a guard with no condition matches no run); so of several
   * reapers, in one process or several, exactly one gets the run back, and a lease renewed or re-claimed
   * meanwhile is left alone. The run's metadata says which attempt comes next (`run_attempt`: attempts
   * + 1), so clients and the A2A projection tell a run handed back from one not yet started. Returns the
   * requeued run with the attempts it has had, or null. `handBack`: a shutdown hands the run back on
   * purpose, counted in its `RunInternal.handBacks` by the same write.
   */
  requeue(runId: string, guard: RequeueGuard, options?: { handBack?: boolean }): Promise<ClaimedRun | null>;
  /**
   * Deletes the run with its result and events. With `checkpoints: true` (rollback), also deletes the
   * checkpoints the run wrote (checkpoint metadata `run_id`) and their pending writes.
   */
  delete(runId: string, options?: { checkpoints?: boolean }): Promise<boolean>;
  /**
   * The error the run failed with, as stored by `transition` (a fresh copy), or null: unknown run, or a
   * run that did not fail. Goes with the run when it is erased; copied with it by a thread copy.
   */
  getError(runId: string): Promise<RunError | null>;
  /** Server-private facts set at creation; null for an unknown run. */
  getInternal(runId: string): Promise<RunInternal | null>;
  /**
   * How many runs are `pending` (the queue's depth, runs deferred by `after_seconds` included): what
   * metrics read at scrape time. One indexed count (memory: O(1)). Optional: without it the depth is
   * not reported.
   */
  countPending?(): Promise<number>;
  /**
   * Stores what the run produced. No-op for an unknown or deleted run. First write wins, atomically:
   * a later write for the same run changes nothing. The stored value is a wire-normalized copy
   * (`toWireJson`); a value that cannot be serialized throws `WireSerializationError` and stores nothing.
   * Optional: a driver (or wrapper over one) without it cannot serve A2A.
   */
  recordResult?(runId: string, result: RunResult): Promise<void>;
  /**
   * Settlement's writes in one transaction: the result (`result`), the terminal status, the thread
   * (`thread`) and the lease (`releaseLease`). In order:
   * - records `result` as `recordResult` does (first write wins) when the run exists and — with `owner` —
   *   `owner` holds its lease, whatever its status (a cancel that won still gets the holder's result);
   * - writes `to` as `transition(runId, to, options)` does, with the same guards; if a guard fails,
   *   nothing else below is written and the call returns null;
   * - with `thread`, applies it to the run's thread (as `ThreadRepo.update` would);
   * - with `releaseLease` (and `owner`), clears the lease in the same write, so the thread's next run
   *   can be claimed only once the thread is updated.
   * All of it commits together. A result or thread value that cannot be serialized throws
   * `WireSerializationError` before anything is written. Optional (with `recordResult`): without it,
   * settlement checks the lease, records, transitions, updates the thread and releases the lease in turn.
   */
  settle?(runId: string, to: RunStatus, options: RunSettlement): Promise<SettledRun | null>;
  /** The stored result as a fresh copy, or null when there is none. Optional, like `recordResult`. */
  getResult?(runId: string): Promise<RunResult | null>;
  /**
   * A2A tasks: first runs of `assistant_id` whose internal `captureResult` is set and `taskId` is not,
   * newest first (created_at desc, then insertion order desc), optionally of one thread. Served by an
   * index, never a scan of unrelated runs. limit defaults to 10.
   */
  searchTaskRoots(query: { assistant_id: string; thread_id?: string; limit?: number; offset?: number }): Promise<Run[]>;
  /**
   * An A2A task in one read: the run `taskId` with its internal marker (`getInternal`) and the task's
   * latest continuation (`latestContinuation(taskId)`, null when none); null for an unknown run. The
   * caller decides whether the run is a task. Optional: without it, callers make the three reads.
   */
  getTask?(taskId: string): Promise<TaskRuns | null>;
  /** The newest run whose internal `taskId` is `taskId` (the task's latest continuation), or null. Indexed. */
  latestContinuation(taskId: string): Promise<Run | null>;
  /**
   * Every run whose internal `taskId` is `taskId` (the task's continuations), oldest first (created_at,
   * then insertion order), at most `limit` (default 100). Same index as `latestContinuation`.
   */
  listContinuations(taskId: string, options?: { limit?: number }): Promise<Run[]>;
}
