import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, type Assistant, type AuthFilter } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";
import type { AuthAction } from "../auth/request-auth.js";

export interface AuthorizedAssistant {
  assistant: Assistant;
  /** The auth value after the handler ran (it may have changed metadata). */
  value: Record<string, unknown>;
  filter: AuthFilter | undefined;
}

/** A graph name is accepted wherever an assistant id is (its system assistant). */
export function resolveAssistantId(c: Context<AppEnv>, idOrGraph: string): string {
  return c.var.deps.engine.registry.resolveAssistantId(idOrGraph);
}

/**
 * Authorizes `assistants:<action>` and loads the assistant. Unknown, and outside the caller's auth
 * filter, both answer 404: a caller cannot tell an assistant it may not see from one that does not exist.
 */
export async function authorizedAssistant(
  c: Context<AppEnv>,
  idOrGraph: string,
  action: AuthAction,
  extra: Record<string, unknown> = {},
): Promise<AuthorizedAssistant> {
  const assistantId = resolveAssistantId(c, idOrGraph);
  const value: Record<string, unknown> = { assistant_id: assistantId, ...extra };
  const filter = await c.var.auth.authorize("assistants", action, value);
  const assistant = await c.var.deps.storage.assistants.get(assistantId);
  if (!assistant || !matchesAuthFilter(assistant.metadata, filter)) assistantNotFound(idOrGraph);
  return { assistant, value, filter };
}

export function assistantNotFound(idOrGraph: string): never {
  throw new HTTPException(404, { message: `Assistant "${idOrGraph}" not found` });
}

/** Assistants can only point at graphs this server loaded (as admission requires to run them). */
export function requireLoadedGraph(c: Context<AppEnv>, graphId: string): void {
  if (!c.var.deps.engine.registry.has(graphId)) {
    throw new HTTPException(404, { message: `Graph "${graphId}" not found` });
  }
}

/** Drops null members: the SDK and other clients send null for "not given". */
export function withoutNulls<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}
