import type { AuthUser } from "./request-auth.js";
import type { AuthenticateHandler } from "./auth-instance.js";
import { asUserHttpError, authHttpException, isAssertionError } from "./auth-errors.js";

/**
 * Runs the user's `authenticate(request)` and normalizes its answer as the official server does:
 * - a string is the identity: `{ identity, display_name: identity, permissions: [], is_authenticated: true }`;
 * - an object with a string `identity` keeps its other fields; `permissions` becomes `[]` unless it is an
 *   array, `is_authenticated` defaults to true and `display_name` to the identity.
 * Failure is a 401 `{ detail }`; an `HTTPException` thrown by the handler keeps its status and headers.
 * Unlike the official server (a 500), an unusable answer (null, no identity) is a 401 too: a handler that
 * returns nothing for an unknown token must not let the request through or crash the request.
 */
export async function authenticateRequest(handler: AuthenticateHandler, request: Request): Promise<AuthUser> {
  let answer: unknown;
  try {
    answer = await handler(request);
  } catch (error) {
    throw toAuthenticationError(error);
  }
  const user = normalizeUser(answer);
  if (!user) {
    console.warn("auth: authenticate() returned neither a string nor an object with a string `identity`; answering 401");
    throw authHttpException(401, "Unauthorized", 401);
  }
  return user;
}

export function normalizeUser(answer: unknown): AuthUser | undefined {
  if (typeof answer === "string") {
    return freezeUser({ identity: answer, display_name: answer, permissions: [], is_authenticated: true });
  }
  if (answer == null || typeof answer !== "object" || Array.isArray(answer)) return undefined;
  const fields = answer as Record<string, unknown>;
  if (typeof fields.identity !== "string") return undefined;
  const permissions = Array.isArray(fields.permissions) ? [...(fields.permissions as unknown[])].map(String) : [];
  return freezeUser({
    ...fields,
    identity: fields.identity,
    permissions,
    is_authenticated: typeof fields.is_authenticated === "boolean" ? fields.is_authenticated : true,
    display_name: typeof fields.display_name === "string" ? fields.display_name : fields.identity,
  });
}

/**
 * The user is fixed for the request once authenticated: routes and handlers read it, nothing rewrites it
 * (a handler mutating `user.identity` would otherwise change the filters of later checks).
 */
function freezeUser(user: AuthUser): AuthUser {
  Object.freeze(user.permissions);
  return Object.freeze(user);
}

function toAuthenticationError(error: unknown): Error {
  const http = asUserHttpError(error);
  if (http) return authHttpException(http.status, http.message, 401, http.headers);
  if (isAssertionError(error)) return authHttpException(401, (error as Error).message, 401);
  // An unexpected failure in the user's code is logged, and the request is not authenticated.
  console.error("auth: authenticate() failed", error);
  return authHttpException(401, "Unauthorized", 401);
}
