import { HTTPException } from "hono/http-exception";
import { isPlainObject, type AuthFilter } from "@agent-server/core";
import type { AuthAction, AuthResource, AuthUser } from "./request-auth.js";
import { findHandler, type AuthHandlers } from "./auth-instance.js";
import { asUserHttpError, authHttpException, isAssertionError } from "./auth-errors.js";

/**
 * Runs the handler registered for `resource:action` (lookup order in `findHandler`) and interprets its
 * answer as the official server does:
 * - nothing, `null` or `true`: allowed, no filter;
 * - `false`: 403;
 * - an object: a metadata filter (validated below);
 * - a thrown `HTTPException`: its status and message; an `AssertionError`: 403 (as Python's server);
 * - anything else thrown or returned: a 500, since it is a bug in the auth code, not a decision.
 * The handler may change `value` in place (add `metadata.owner`); the caller keeps using that object.
 * No handler for the event: allowed, as in the official server.
 */
export async function authorizeEvent(
  handlers: AuthHandlers,
  user: AuthUser,
  resource: AuthResource,
  action: AuthAction,
  value: object,
): Promise<AuthFilter | undefined> {
  const handler = findHandler(handlers, resource, action);
  if (!handler) return undefined;
  let result: unknown;
  try {
    result = await handler({
      event: `${resource}:${action}`,
      resource,
      action,
      value,
      user,
      permissions: user.permissions,
    });
  } catch (error) {
    const http = asUserHttpError(error);
    if (http) throw authHttpException(http.status, http.message, 403, http.headers);
    if (isAssertionError(error)) throw authHttpException(403, (error as Error).message, 403);
    throw error;
  }
  if (result === undefined || result === null || result === true) return undefined;
  if (result === false) throw authHttpException(403, "Forbidden", 403);
  return validateAuthFilter(result, `${resource}:${action}`);
}

/**
 * A filter must be something every driver can apply exactly (core's `matchesAuthFilter`, the SQL
 * translations): per key either a JSON scalar (equality) or `{ $eq: scalar }` / `{ $contains: scalar |
 * scalar[] }`. Anything else is rejected instead of guessed at, because a misread filter widens access:
 * an `undefined` value would match every object lacking the key, an unknown operator would be compared
 * as a literal value. An empty filter means "no restriction".
 */
export function validateAuthFilter(result: unknown, event: string): AuthFilter | undefined {
  if (!isPlainObject(result)) {
    throw invalid(event, `expected a filter object, null, undefined or a boolean, got ${describe(result)}`);
  }
  const entries = Object.entries(result);
  if (entries.length === 0) return undefined;
  const filter: AuthFilter = {};
  for (const [key, condition] of entries) {
    if (isScalar(condition)) {
      filter[key] = condition;
      continue;
    }
    if (!isPlainObject(condition))
      throw invalid(event, `filter "${key}" must be a scalar or an operator object, got ${describe(condition)}`);
    const ops = Object.keys(condition);
    const unknown = ops.filter((op) => op !== "$eq" && op !== "$contains");
    if (ops.length === 0 || unknown.length > 0) {
      throw invalid(event, `filter "${key}" supports only the operators $eq and $contains, got {${ops.join(", ")}}`);
    }
    const checked: Record<string, unknown> = {};
    if ("$eq" in condition) {
      if (!isScalar(condition.$eq)) throw invalid(event, `filter "${key}": $eq needs a scalar, got ${describe(condition.$eq)}`);
      checked.$eq = condition.$eq;
    }
    if ("$contains" in condition) {
      const wanted = condition.$contains;
      const ok = isScalar(wanted) || (Array.isArray(wanted) && wanted.length > 0 && wanted.every(isScalar));
      if (!ok) throw invalid(event, `filter "${key}": $contains needs a scalar or a non-empty array of scalars, got ${describe(wanted)}`);
      checked.$contains = Array.isArray(wanted) ? [...wanted] : wanted;
    }
    filter[key] = checked;
  }
  // A copy: the handler keeps no reference through which it could change the filter later.
  return filter;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" && value !== null ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

function invalid(event: string, message: string): HTTPException {
  console.error(`auth: the handler for "${event}" returned an invalid result: ${message}`);
  return authHttpException(500, `Auth handler for "${event}" returned an invalid result: ${message}`, 403);
}
