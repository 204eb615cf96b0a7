import type { MiddlewareHandler } from "hono";
import { withEncryptionUser } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";
import { openAccess, type AuthAction, type AuthResource, type AuthUser, type RequestAuth } from "./request-auth.js";
import { readAuthHandlers, type AuthHandlers } from "./auth-instance.js";
import { authenticateRequest } from "./authenticate.js";
import { authorizeEvent } from "./authorize.js";
import { authHttpException } from "./auth-errors.js";

/**
 * Paths served without authentication: health, server info and the API description, which clients read
 * before they have credentials. The official JS server exempts /info (and /ok, /openapi.json and /docs are
 * outside auth in the Python server); only reads are exempt.
 */
export const AUTH_EXEMPT_PATHS: readonly string[] = ["/ok", "/ready", "/info", "/openapi.json", "/docs"];

export function isAuthExempt(method: string, path: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  return AUTH_EXEMPT_PATHS.includes(path) || path.startsWith("/docs/");
}

/**
 * Sets `c.var.auth` for every request. Without custom auth (`auth` undefined) that is open access.
 * With an `Auth` instance (langgraph.json `auth.path`), the user comes from its `authenticate(request)`
 * and from nothing else in the request; failure ends the request with 401 `{ detail }` before any route.
 * A broken `Auth` object fails here, when the app is built, not on the first request.
 */
export function authMiddleware(auth: unknown): MiddlewareHandler<AppEnv> {
  const authenticate = authenticatorOf(auth);
  if (!authenticate) {
    return async (c, next) => {
      c.set("auth", openAccess);
      await next();
    };
  }
  return async (c, next) => {
    if (isAuthExempt(c.req.method, c.req.path)) {
      c.set("auth", unauthenticated);
      return next();
    }
    // A clone: a handler that reads the body must not consume the one the route reads next.
    const auth = await authenticate(c.req.raw.clone());
    c.set("auth", auth);
    // What the request writes is sealed for its user (a custom encryptor picks their key: docs/security.md).
    return withEncryptionUser(auth.user, () => next());
  };
}

/**
 * The "Request -> RequestAuth" step of `authMiddleware`, for servers outside this Hono app (the A2A gRPC
 * server turns each call into a fetch `Request`): the same project auth, the same user normalization.
 * Without custom auth (or an `Auth` with no handlers) every request gets open access. A failed
 * authentication rejects with the `HTTPException` (401, or the handler's own status) the middleware
 * would answer with; a denial by an authorization handler later is its `HTTPException` 403.
 * A broken `Auth` object fails here, not on the first request.
 */
export function requestAuthenticator(auth: unknown): (request: Request) => Promise<RequestAuth> {
  return authenticatorOf(auth) ?? (async () => openAccess);
}

/** undefined: nothing to check (no custom auth, or an Auth with no handlers at all, as in the official server). */
function authenticatorOf(auth: unknown): ((request: Request) => Promise<RequestAuth>) | undefined {
  if (auth === undefined || auth === null) return undefined;
  const handlers = readAuthHandlers(auth);
  const authenticate = handlers.authenticate;
  if (!authenticate) return undefined;
  return async (request) => authenticatedAs(handlers, await authenticateRequest(authenticate, request));
}

function authenticatedAs(handlers: AuthHandlers, user: AuthUser): RequestAuth {
  return Object.freeze({
    user,
    authorize: (resource: AuthResource, action: AuthAction, value: object) => authorizeEvent(handlers, user, resource, action, value),
  });
}

/** On exempt paths no user was established: any authorization attempt there is refused. */
const unauthenticated: RequestAuth = Object.freeze({
  user: undefined,
  authorize: async () => {
    throw authHttpException(401, "Unauthorized", 401);
  },
});
