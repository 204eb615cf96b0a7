import type { Context } from "hono";
import { ACTIVE_RUN_STATUSES, matchesAuthFilter, NotFoundError, type Thread } from "@agent-server/core";
import { ThreadStateService, type HeldThreadLock } from "@agent-server/engine";
import type { AppDeps, AppEnv } from "../app-env.js";
import type { AuthAction } from "../auth/request-auth.js";
import { notFound } from "../http/errors.js";

type Ctx = Context<AppEnv>;

const services = new WeakMap<AppDeps, ThreadStateService>();

/** One state service per app (it holds no per-request state). */
export function stateService(c: Ctx): ThreadStateService {
  return stateServiceOf(c.var.deps);
}

/** `stateService` for callers without a request context (the thread streaming protocol's WebSocket). */
export function stateServiceOf(deps: AppDeps): ThreadStateService {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = new ThreadStateService(deps.storage, deps.engine.registry)));
  return service;
}

/**
 * Authorizes `threads:<action>` on one thread, then loads it. A thread that does not exist, or whose
 * metadata the returned filter hides, is a 404 (never a 403: the caller must not learn it exists).
 * Returns the authorized value, which the handler may have changed (e.g. metadata).
 */
export async function visibleThread<V extends Record<string, unknown>>(
  c: Ctx,
  action: AuthAction,
  threadId: string,
  extra?: V,
): Promise<{ thread: Thread; value: { thread_id: string } & V }> {
  const value = { thread_id: threadId, ...extra } as { thread_id: string } & V;
  const filter = await c.var.auth.authorize("threads", action, value);
  const thread = await c.var.deps.storage.threads.get(threadId);
  if (!thread || !matchesAuthFilter(thread.metadata, filter)) notFound(`Thread "${threadId}"`);
  return { thread, value };
}

/** Bound on waiting for a cancelled run's executor to unwind before its thread goes away. */
const STOP_WAIT_MS = 5000;

/**
 * Cancels the thread's pending and running runs and waits (briefly) for their executions in this
 * process to settle, so a deleted thread does not get checkpoints written after it is gone. A caller
 * inside the thread's lock section passes the lock it holds (`heldLock`), or the cancels wait for it.
 */
export async function stopThreadRuns(c: Ctx, threadId: string, heldLock?: HeldThreadLock): Promise<void> {
  const { storage, engine } = c.var.deps;
  const active = await storage.runs.search({ thread_id: threadId, status: [...ACTIVE_RUN_STATUSES], limit: 1000 });
  if (active.length === 0) return;
  const ids = active.map((run) => run.run_id);
  try {
    await engine.cancel(ids, { threadId, action: "interrupt", heldLock });
  } catch (error) {
    // A run that ended (or was deleted) meanwhile needs no cancelling.
    if (!(error instanceof NotFoundError)) throw error;
  }
  const settled = Promise.allSettled(ids.map((id) => engine.waitRun(id, threadId)));
  await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref?.())]);
}
