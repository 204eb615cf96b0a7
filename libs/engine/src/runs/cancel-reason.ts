/**
 * Why a run was cancelled, as `Run.cancel_reason` keeps it: `<cause>:<detail>`. The official SDK documents
 * one of them (`runs.cancel(..., { reason: "taken" })`: "the server records a `cancel_reason` starting with
 * `taken:`"); clients are expected to test the cause (the part before the colon), not the whole string.
 * The reason is written by the cancel's own terminal write (`RunRepo.transition`'s `cancelReason`), so it
 * costs no statement. A rolled-back run is erased: it keeps no reason.
 */
export const CancelReasons = {
  /** A client asked for the cancel (POST .../cancel, POST /runs/cancel, A2A CancelTask, MCP): the default. */
  request: "cancel:client",
  /** A client cancelled a queued run whose input the running one absorbed (steering): `reason=taken`. */
  taken: "taken:client",
  /** The client of the run's own stream or wait went away (`on_disconnect: cancel`, `cancel_on_disconnect`). */
  disconnect: "disconnect:client",
  /** Another run of the thread was admitted with `multitask_strategy` `interrupt` (or `rollback`): its id. */
  multitask: (strategy: "interrupt" | "rollback", runId: string) => `${strategy}:${runId}`,
} as const;
