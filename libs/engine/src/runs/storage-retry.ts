import { isStorageOutage } from "@agent-server/core";

/**
 * Calls `fn` until it stops failing with a storage fault (`isStorageOutage`: the database unreachable, a
 * full disk), waiting `FIRST_WAIT_MS` doubling up to `MAX_WAIT_MS` between calls, for at most `limitMs`
 * in all. Any other error, or the last fault once the limit is spent, propagates. For the writes that
 * must land for a run not to be lost or left `running` (its hand-back, its settlement): the caller then
 * falls back on the run's lease, which lapses and lets a reaper requeue it.
 */
export async function untilStorageReturns<T>(fn: () => Promise<T>, limitMs = RETRY_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let waitMs = FIRST_WAIT_MS;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (!isStorageOutage(error) || Date.now() + waitMs > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    waitMs = Math.min(waitMs * 2, MAX_WAIT_MS);
  }
}

const FIRST_WAIT_MS = 250;
const MAX_WAIT_MS = 2000;
/** Beyond this (two minutes of outage), a run is left to its lease (30 s by default) and the reaper. */
export const RETRY_LIMIT_MS = 120_000;
