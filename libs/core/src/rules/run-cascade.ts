import type { DeliveryStatus } from "../model.js";

/**
 * What erasing a run takes with it, the same in every driver and for every way a run is erased: run
 * delete, rollback (which also takes the checkpoints the run wrote), thread delete and prune with
 * `delete` (all the thread's runs). Assistant delete erases no run (see `ASSISTANT_DEPENDENTS`).
 * - `result`: its `RunResult`;
 * - `events`: its resumable stream events (and the per-run id counter where a driver keeps one);
 * - `pushConfigs`: its A2A push notification configs;
 * - `deliveries`: its outbox deliveries that are finished (see `ERASED_DELIVERY_STATUSES`).
 * Its A2A lineage lives on the run itself (internal `taskId` / `captureResult`) and goes with it.
 * Runs that continue an erased task root are other runs: they stay.
 *
 * A driver keeps one eraser per dependent (`Record<RunDependent, ...>`), so a dependent added here does
 * not compile until every driver erases it.
 */
export const RUN_DEPENDENTS = ["result", "events", "pushConfigs", "deliveries"] as const;
export type RunDependent = (typeof RUN_DEPENDENTS)[number];

/**
 * The deliveries of an erased run that go with it: those already delivered or given up (their headers
 * may carry a receiver's credentials). A pending delivery stays: it is the outbox's promise to report
 * the run's end, and a stateless run's webhook is enqueued just before its thread is deleted. It clears
 * its own payload once sent or given up, and `purgeFinished` removes it later.
 */
export const ERASED_DELIVERY_STATUSES: readonly DeliveryStatus[] = ["delivered", "failed"];

export function erasesDelivery(delivery: { status: DeliveryStatus }): boolean {
  return ERASED_DELIVERY_STATUSES.includes(delivery.status);
}
