import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, readThreadHeader, type AuthFilter, type Run, type ThreadHeader } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";
import type { AuthAction } from "../auth/request-auth.js";

/**
 * Runs are authorized through their thread (as the official server does): `threads:<action>` is asked
 * first, then the thread must exist and match the returned filter. A thread the caller may not see
 * answers 404, exactly like one that does not exist.
 */
export async function authorizedThread(
  c: Context<AppEnv>,
  threadId: string,
  action: AuthAction,
  extra: Record<string, unknown> = {},
): Promise<{ thread: ThreadHeader; filter: AuthFilter | undefined }> {
  const filter = await c.var.auth.authorize("threads", action, { thread_id: threadId, ...extra });
  // Its metadata decides: the state is not read (a long thread's is large).
  const thread = await readThreadHeader(c.var.deps.storage.threads, threadId);
  if (!thread || !matchesAuthFilter(thread.metadata, filter)) threadNotFound(threadId);
  return { thread, filter };
}

/** `authorizedThread`, then the run, which must belong to that thread. */
export async function authorizedRun(
  c: Context<AppEnv>,
  threadId: string,
  runId: string,
  action: AuthAction,
): Promise<{ thread: ThreadHeader; run: Run }> {
  const { thread } = await authorizedThread(c, threadId, action, { run_id: runId });
  const run = await c.var.deps.storage.runs.get(runId, threadId);
  if (!run) runNotFound(runId);
  return { thread, run };
}

export function threadNotFound(threadId: string): never {
  throw new HTTPException(404, { message: `Thread "${threadId}" not found` });
}

export function runNotFound(runId: string): never {
  throw new HTTPException(404, { message: `Run "${runId}" not found` });
}
