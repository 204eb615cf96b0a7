/**
 * Reading an `Auth` instance of `@langchain/langgraph-sdk/auth`. The user's project may resolve its own
 * copy of the SDK, so `instanceof` is not reliable: like the official server, we duck-type on the
 * handler cache the SDK keeps in `auth["~handlerCache"]` (`authenticate` and `callbacks[event]`).
 */

/** What an authorization handler receives (the SDK's `CallbackParameter`). */
export interface AuthHandlerRequest {
  event: string;
  resource: string;
  action: string;
  value: unknown;
  user: Record<string, unknown>;
  permissions: string[];
}

export type AuthenticateHandler = (request: Request) => unknown;
export type AuthorizeHandler = (request: AuthHandlerRequest) => unknown;

/** The handlers of one `Auth` instance, checked once when the server starts. */
export interface AuthHandlers {
  authenticate?: AuthenticateHandler;
  /** Keyed by the event names `.on(...)` accepts: "*", "threads", "*:read", "threads:read". */
  callbacks: Readonly<Record<string, AuthorizeHandler>>;
}

/** Resources and their actions, as the SDK's `EventValueMap` lists them. */
export const AUTH_EVENTS: Readonly<Record<string, readonly string[]>> = {
  assistants: ["create", "read", "update", "delete", "search"],
  threads: ["create", "read", "update", "delete", "search", "create_run"],
  crons: ["create", "read", "update", "delete", "search"],
  store: ["put", "get", "search", "list_namespaces", "delete"],
};

/** Every key `.on(...)` may register: "*", each resource, each "*:action" and each "resource:action". */
export const KNOWN_EVENT_KEYS: ReadonlySet<string> = new Set([
  "*",
  ...Object.keys(AUTH_EVENTS),
  ...Object.values(AUTH_EVENTS).flatMap((actions) => actions.map((action) => `*:${action}`)),
  ...Object.entries(AUTH_EVENTS).flatMap(([resource, actions]) => actions.map((action) => `${resource}:${action}`)),
]);

export function isAuthInstance(value: unknown): boolean {
  if (value == null || (typeof value !== "object" && typeof value !== "function")) return false;
  const cache = (value as Record<string, unknown>)["~handlerCache"];
  return cache != null && typeof cache === "object";
}

/**
 * Extracts and checks the handlers of an `Auth` instance. Fails closed on setups the official server
 * would silently run open:
 * - `.on(...)` handlers without `authenticate`: the official server then skips every handler (it has no
 *   user to pass), which would make the authorization rules dead code;
 * - an event key no action ever raises (a typo such as "thread:create"), which would never run.
 */
export function readAuthHandlers(auth: unknown, label = "auth"): AuthHandlers {
  if (!isAuthInstance(auth)) {
    throw new Error(`${label} is not an instance of Auth from "@langchain/langgraph-sdk/auth"`);
  }
  const cache = (auth as { "~handlerCache": { authenticate?: unknown; callbacks?: unknown } })["~handlerCache"];
  const authenticate = cache.authenticate;
  if (authenticate !== undefined && typeof authenticate !== "function") {
    throw new Error(`${label}: the authenticate handler is not a function`);
  }
  const callbacks: Record<string, AuthorizeHandler> = {};
  for (const [key, handler] of Object.entries((cache.callbacks ?? {}) as Record<string, unknown>)) {
    if (!KNOWN_EVENT_KEYS.has(key)) {
      throw new Error(`${label}: unknown authorization event "${key}" in .on(); expected one of ${[...KNOWN_EVENT_KEYS].join(", ")}`);
    }
    if (typeof handler !== "function") throw new Error(`${label}: the handler for "${key}" is not a function`);
    callbacks[key] = handler as AuthorizeHandler;
  }
  if (!authenticate && Object.keys(callbacks).length > 0) {
    throw new Error(`${label}: authorization handlers (.on) need an authenticate handler; without one no request has a user to authorize`);
  }
  return {
    authenticate: authenticate as AuthenticateHandler | undefined,
    callbacks: Object.freeze(callbacks),
  };
}

/**
 * Whether requests are authenticated with `auth` (an Auth with an `authenticate` handler). An absent
 * Auth, or one without handlers, leaves the server open (authMiddleware), as the official server does.
 */
export function authenticatesRequests(auth: unknown): boolean {
  return auth !== undefined && auth !== null && readAuthHandlers(auth).authenticate !== undefined;
}

/**
 * The handler for `resource:action`, most specific first, as the official server looks it up:
 * "resource:action", then "resource", then "*:action", then "*". The first one registered wins.
 */
export function findHandler(handlers: AuthHandlers, resource: string, action: string): AuthorizeHandler | undefined {
  for (const key of [`${resource}:${action}`, resource, `*:${action}`, "*"]) {
    if (Object.hasOwn(handlers.callbacks, key)) return handlers.callbacks[key];
  }
  return undefined;
}
