import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { AuthFilter } from "@agent-server/core";
import type { RunAuthContext } from "@agent-server/engine";
import { runAuthOf, type StructuralAuthUser } from "../run-auth.js";

/** The resources and actions MCP asks the project's auth handlers about, as `@langchain/langgraph-sdk/auth` names them. */
export type McpAuthResource = "assistants" | "threads";
export type McpAuthAction = "search" | "read" | "create" | "create_run";

/** agent-protocol's `RequestAuth` (`c.var.auth`), read structurally: interop must not import agent-protocol. */
export interface McpRequestAuth {
  readonly user?: StructuralAuthUser | undefined;
  authorize(resource: McpAuthResource, action: McpAuthAction, value: object): Promise<AuthFilter | undefined>;
}

/**
 * The caller of one HTTP request to /mcp. The routes build it from the auth middleware's result and hand
 * it to the MCP server through the transport's `authInfo`, so every request — also each request of a
 * long-lived session — is answered for the user who sent it.
 */
export interface McpCaller {
  /** What admission takes as `{ auth }` (identity and permissions into the run's config); undefined without custom auth. */
  readonly auth: RunAuthContext | undefined;
  /** Who owns a session this caller opens: the identity, "" without custom auth. */
  readonly key: string;
  /** The project's handler for `<resource>:<action>`: a denial throws (an `HTTPException` 403), a filter scopes reads. */
  authorize(resource: McpAuthResource, action: McpAuthAction, value: object): Promise<AuthFilter | undefined>;
  /** Aborted when the HTTP request that carried the current message is gone (the client closed the connection). */
  readonly signal: AbortSignal | undefined;
}

const openAuth: McpRequestAuth = { authorize: async () => undefined };

/** The caller of this request, from the `RequestAuth` the auth middleware left in `c.var.auth` (open access without one). */
export function callerOf(requestAuth: unknown, signal?: AbortSignal): McpCaller {
  const auth = isRequestAuth(requestAuth) ? requestAuth : openAuth;
  const runAuth = runAuthOf(auth.user);
  return {
    auth: runAuth,
    key: runAuth?.user.identity ?? "",
    authorize: (resource, action, value) => auth.authorize(resource, action, value),
    signal,
  };
}

function isRequestAuth(value: unknown): value is McpRequestAuth {
  return typeof value === "object" && value !== null && typeof (value as McpRequestAuth).authorize === "function";
}

/** The key under which the caller travels in the SDK's `AuthInfo.extra`. */
const CALLER_KEY = "agent-server.mcp.caller";

/** `AuthInfo` for `transport.handleRequest`: the SDK hands it to every handler of the request's messages as `extra.authInfo`. */
export function authInfoFor(caller: McpCaller): AuthInfo {
  return { token: "", clientId: caller.key, scopes: caller.auth?.permissions ?? [], extra: { [CALLER_KEY]: caller } };
}

/** The caller a handler was called for; open access when the message did not come through the routes. */
export function callerFrom(authInfo: AuthInfo | undefined): McpCaller {
  return (authInfo?.extra?.[CALLER_KEY] as McpCaller | undefined) ?? callerOf(undefined);
}

/**
 * An auth handler's refusal, as a line a tool result can carry: `HTTPException`s of
 * `@langchain/langgraph-sdk/auth` (read structurally) keep their status and message; anything else is
 * not an auth refusal (undefined).
 */
export function refusalText(error: unknown): string | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  const message = error instanceof Error && error.message ? error.message : status === 401 ? "Unauthorized" : "Forbidden";
  return `Not allowed (${status}): ${message}`;
}
