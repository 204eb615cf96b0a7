import type { Run, RunInternal, RunResult, RunStatus } from "@agent-server/core";

/** What settlement receives and reports: an execution's outcome, its steps, its listeners' event. */

/** A run that reached a terminal status, as settlement hands it to `Engine.onRunSettled` listeners. */
export interface RunSettledEvent {
  /** The stored run row after its terminal write (status, updated_at). */
  run: Run;
  /** The run's terminal status (the one that won: a cancel beats a completion). */
  status: RunStatus;
  /** Server-private facts of the run (A2A marker and lineage), null when it has none. */
  internal: RunInternal | null;
  /**
   * False when the terminal write found no A2A push notification config for the run's task
   * (`SettledRun.pushConfigs`): a listener need not look them up. Absent: not known.
   */
  pushConfigs?: boolean;
}

/**
 * Called once per run that reached a terminal status and still exists (a rolled-back run is erased:
 * no event). Awaited before waiters are woken; a listener that throws is logged and ignored, it never
 * makes settlement fail.
 */
export type RunSettledListener = (event: RunSettledEvent) => void | Promise<void>;

/**
 * The steps of settlement after a run's terminal write, as `RunLogger.settlementStepFailed` names them.
 * Each runs even when an earlier one failed. (`onRunSettled` listeners report through
 * `settledListenerFailed`.)
 */
export type SettlementStep =
  /** Publishing the run's `error` event to its stream. */
  | "error-event"
  /** Publishing the events that announce the run's stop (`__interrupt__` chunks), held back until its thread was free. */
  | "stop-events"
  /** Appending a thread-streaming-protocol run's terminal `lifecycle` event to its thread's stream. */
  | "protocol-lifecycle"
  /** Reading the run row after another path (a cancel) won the terminal write. */
  | "read-final"
  /** Updating (or freeing) the run's thread. */
  | "thread"
  /** Enqueueing the run's webhook. */
  | "webhook"
  /** Deleting a stateless run's temporary thread. */
  | "temporary-thread"
  /** Releasing the executor's lease on the run (else the run's thread waits for the lease to lapse). */
  | "lease"
  /** Closing the run's live streams (waiters are woken even so). */
  | "streams";

export type ExecutionOutcome =
  | { kind: "success"; result: RunResult }
  | { kind: "error"; error: unknown }
  /** Stopped at its time limit (run-timeout.ts): the run ends `timeout`, the error kept as its error. */
  | { kind: "timeout"; error: Error }
  /** Stopped by a cancel, a multitask strategy or shutdown. */
  | { kind: "interrupted" };
