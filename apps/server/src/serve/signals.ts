import type { Logger } from "../observability/index.js";
import type { StartedServer } from "./start-server.js";

/**
 * SIGINT/SIGTERM: drain (claim no more runs, /ready answers 503, HTTP still served), let running runs
 * finish within the grace period, hand the rest back to the queue (they resume from their checkpoint on
 * the next start or another process), close the storage, exit 0. A second signal while that is under
 * way exits at once: the storage is crash-safe, and leftover runs are recovered later.
 */
export function handleSignals(
  server: StartedServer,
  graceMs: number,
  drainMs: number,
  logger: Logger,
): (signal: NodeJS.Signals, reason: string, graceMs: number) => void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals, reason = `${signal} received`, grace = graceMs) => {
    if (stopping) {
      logger.warn({ signal }, `${reason} again: exiting now`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    stopping = true;
    logger.info(
      { signal, grace_ms: grace, drain_ms: drainMs },
      `${reason}: draining (running runs get ${grace / 1000} s to finish, then are handed back to the queue)`,
    );
    server.stop(grace, drainMs).then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", (signal) => onSignal(signal));
  process.on("SIGTERM", (signal) => onSignal(signal));
  return onSignal;
}
