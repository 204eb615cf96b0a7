import { isStorageOutage, type Storage } from "@agent-server/core";

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

/**
 * Deletes a thread made for a call that was then refused (a stateless run's temporary thread, an A2A
 * task's or MCP call's new context). Should the delete be refused too (the same full disk), the caller
 * is still told why the call was (its own fault keeps its 507/503), and the delete is tried again in the
 * background until it goes through, so that no thread is left without its run once there is room again.
 */
export async function deleteThreadEventually(storage: Storage, threadId: string): Promise<void> {
  const remove = () => storage.threads.delete(threadId);
  await remove().catch(() => retryInBackground(remove));
}

/** Tries of `retryInBackground`, 250 ms apart at first, then 1 s apart: about 10 minutes in all. */
const BACKGROUND_TRIES = 600;

/** Calls `attempt` again, later and later, until it resolves; timers never keep the process alive. */
function retryInBackground(attempt: () => Promise<unknown>, tries = 0): void {
  if (tries >= BACKGROUND_TRIES) return;
  const delayMs = Math.min(250 * 2 ** tries, 1000);
  setTimeout(() => void attempt().catch(() => retryInBackground(attempt, tries + 1)), delayMs).unref();
}
