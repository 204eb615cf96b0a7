import type { Delivery } from "@agent-server/core";
import type { TtlSweepKind } from "../ttl/ttl-sweeper.js";
import type { SettlementStep } from "./settlement-types.js";

export interface RunLogger {
  runStarted(runId: string, threadId: string, attempt: number): void;
  /**
   * A run went back to the queue, to execute again as attempt `attempt + 1`: its worker was lost
   * (`lease-expired`, `owner-gone`), a shutdown handed it back (`drained`: stopped at a step boundary,
   * its checkpoint saved; `shutdown`: stopped mid-step, that step runs again), or the database went away
   * under it (`storage`: handed back once the database answered again; it resumes from its last checkpoint).
   */
  runRequeued?(runId: string, threadId: string, attempt: number, reason: string): void;
  /**
   * An execution here ended: `status` is the run's terminal status, `erased` (rolled back), `lost` (its
   * lease lapsed and another owner re-claimed the run, which that owner ends), or `handed-back` (a
   * shutdown put it back in the queue).
   */
  runEnded(runId: string, threadId: string, status: string, durationMs: number): void;
  /** An `onRunSettled` listener threw (settlement went on); console.error when absent. */
  settledListenerFailed?(runId: string, error: unknown): void;
  /** A webhook or push delivery the URL policy refused at send time (marked failed, not sent). */
  deliveryRefused?(delivery: Delivery, reason: string): void;
  /**
   * A step of settlement after the run's terminal write failed (the later steps still ran: waiters woken,
   * streams closed); console.error when absent.
   */
  settlementStepFailed?(runId: string, step: SettlementStep, error: unknown): void;
  /**
   * A run's execution could not be settled at all (storage failed before or at its terminal write): it
   * stays `running` until its lease runs out and the reaper requeues it (a new attempt resumes from its last checkpoint); console.error when absent.
   */
  runFailed?(runId: string, error: unknown): void;
  /**
   * A background loop's round failed (storage unreachable while claiming runs, renewing or reaping leases,
   * sending deliveries, firing crons, expiring events). The loop goes on at its next tick; console.error
   * when absent. Without this, such a rejection went unhandled, and Node ends the process on one.
   */
  backgroundFailed?(task: BackgroundTask, error: unknown): void;
  /** A TTL sweep round removed something (one call per such round): threads deleted or trimmed, store items deleted. */
  ttlSwept?(kind: "threads" | "store", counts: Partial<Record<TtlSweepKind, number>>): void;
}

/** The engine's background loops, as `RunLogger.backgroundFailed` names them. */
export type BackgroundTask = "claim" | "renew" | "reap" | "deliveries" | "crons" | "event-expiry" | "signals" | "ttl-threads" | "ttl-store";
