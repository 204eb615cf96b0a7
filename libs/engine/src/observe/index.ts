import type { Delivery, Run, RunStatus } from "@agent-server/core";
import type { EngineRunKwargs } from "../runs/run-request.js";
import type { TtlSweepKind } from "../ttl/ttl-sweeper.js";

/** Why a run went back to the queue: a crash (`lease-expired`, `owner-gone`) or a shutdown's hand-back. */
export type RunRequeueReason = "lease-expired" | "owner-gone" | "drained" | "shutdown" | "storage";

/** How one attempt at sending a webhook or A2A push notification ended. */
export type DeliveryOutcome = "delivered" | "retried" | "failed" | "refused";

/**
 * Counts of what the engine does, for metrics (apps/server feeds them to Prometheus). Every hook is
 * synchronous, called inline at the point where the fact becomes true, and must not throw; none reads
 * storage. `graphId` is the graph the run was admitted for (`"unknown"` for runs imported without one).
 */
export interface EngineObserver {
  /** A run was admitted (queued, or admitted already cancelled). */
  runAdmitted?(run: Run, graphId: string): void;
  /**
   * An attempt at a run began executing in this process. `queueWaitMs` (first attempts only): from the
   * run's due time (`created_at`, which `after_seconds` puts in the future) to its claim.
   */
  runStarted?(run: Run, graphId: string, attempt: number, queueWaitMs: number | undefined): void;
  /**
   * A run this process settled reached its terminal status, before its waiters are woken (so a
   * `runs.wait` that returned has been counted). `durationMs`: its last execution, from claim to
   * settlement; undefined for a run cancelled before it ever executed.
   */
  runEnded?(run: Run, status: RunStatus, graphId: string, durationMs: number | undefined): void;
  runRequeued?(reason: RunRequeueReason): void;
  deliveryFinished?(kind: Delivery["kind"], outcome: DeliveryOutcome): void;
  /** A TTL sweep round of this process removed `count` rows of `kind`. */
  ttlSwept?(kind: TtlSweepKind, count: number): void;
}

/** The graph a run was admitted for, as admission fixed it in the run's config. */
export function admittedGraphId(run: Run): string {
  const graphId = (run.kwargs as EngineRunKwargs | undefined)?.config?.configurable?.graph_id;
  return typeof graphId === "string" ? graphId : "unknown";
}

/** A first attempt's wait in the queue: from the run's due time (`created_at`) to `claimedAt`; undefined for later attempts. */
export function firstClaimWaitMs(run: Run, attempt: number, claimedAt: number): number | undefined {
  return attempt === 1 ? Math.max(0, claimedAt - Date.parse(run.created_at)) : undefined;
}
