import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { matchesAuthFilter, type AuthFilter } from "@agent-server/core";
import type { RunAuthContext } from "@agent-server/engine";
import { runAuthOf, type StructuralAuthUser } from "../run-auth.js";

/** The thread actions an A2A request needs, as `@langchain/langgraph-sdk/auth` names them (`threads:<action>`). */
export type A2AThreadAction = "create" | "read" | "create_run" | "update";

/** The thread a task lives on (contextId = thread id), as far as authorization needs it. */
export interface A2AThreadRef {
  thread_id: string;
  metadata?: Record<string, unknown> | null;
}

/**
 * The caller of one A2A request, built per request by the routes from agent-protocol's auth middleware
 * (`c.var.auth`) and handed to the request handler. Every task read or write goes through its thread:
 *
 * - `auth`: what run admission takes as `{ auth }` (identity + permissions into the run's config);
 *   undefined without custom auth.
 * - `authorize(action, thread)`: `threads:<action>` through the project's auth handlers.
 *   - A handler denial propagates (an `HTTPException` 403 of `@langchain/langgraph-sdk/auth`).
 *   - A returned filter is checked against `thread.metadata` (`matchesAuthFilter`): a thread the caller
 *     may not see throws the SDK's `TaskNotFoundError` (a foreign task is indistinguishable from a
 *     missing one), except for `create`.
 *   - `create` (a new context): handlers may change `thread.metadata` in place (e.g. add `owner`);
 *     the caller must create the thread with the changed metadata, as the threads routes do.
 *
 * Without custom auth `authorize` allows everything and filters nothing.
 */
export interface A2ARequestScope {
  readonly auth: RunAuthContext | undefined;
  authorize(action: A2AThreadAction, thread: A2AThreadRef): Promise<void>;
}

/** Key of the scope in `ServerCallContext.state`, so handler methods can read it from their `context` too. */
export const A2A_REQUEST_SCOPE_KEY = "agent-server.a2a.requestScope";

/** The scope the routes attached to this call's context (undefined when called outside the routes). */
export function requestScopeOf(context: ServerCallContext | undefined): A2ARequestScope | undefined {
  return context?.state.get(A2A_REQUEST_SCOPE_KEY) as A2ARequestScope | undefined;
}

/** agent-protocol's `RequestAuth`, read structurally (interop must not import agent-protocol). */
export interface StructuralRequestAuth {
  readonly user?: StructuralAuthUser | undefined;
  readonly open?: boolean;
  authorize(resource: "threads", action: A2AThreadAction, value: object): Promise<AuthFilter | undefined>;
}

/** Everyone may do everything (no auth middleware ran, or no custom auth). */
export const openScope: A2ARequestScope = Object.freeze({
  auth: undefined,
  authorize: async () => undefined,
});

/** The scope of one request, from the `RequestAuth` the auth middleware left in `c.var.auth`. */
export function requestScope(requestAuth: StructuralRequestAuth | undefined): A2ARequestScope {
  // Without custom auth nothing is checked, so a task's thread is not read to check it.
  if (!requestAuth || typeof requestAuth.authorize !== "function" || requestAuth.open === true) return openScope;
  const auth = runAuthOf(requestAuth.user);
  return {
    auth,
    async authorize(action, thread) {
      if (action === "create") {
        // Handlers see (and may change) the metadata the thread will be created with.
        thread.metadata ??= {};
        await requestAuth.authorize("threads", action, thread);
        return;
      }
      const filter = await requestAuth.authorize("threads", action, { thread_id: thread.thread_id });
      if (!matchesAuthFilter(thread.metadata ?? {}, filter)) {
        throw new TaskNotFoundError(`task not found`);
      }
    },
  };
}

/**
 * For the request handler: authorizes `action` on the thread `threadId` (a task's contextId), loading it
 * first. A missing thread is a missing task. Returns the thread for further use.
 */
export async function authorizeThread<T extends A2AThreadRef>(
  scope: A2ARequestScope,
  threads: { get(threadId: string): Promise<T | null> },
  threadId: string,
  action: Exclude<A2AThreadAction, "create">,
): Promise<T> {
  const thread = await threads.get(threadId);
  if (!thread) throw new TaskNotFoundError(`task not found`);
  await scope.authorize(action, thread);
  return thread;
}
