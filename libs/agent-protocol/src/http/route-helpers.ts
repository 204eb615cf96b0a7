import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { toWireJson } from "@agent-server/core";

/**
 * The one set of helpers every router declares and answers its routes with: OpenAPI declarations of a
 * JSON body and a JSON response, the one error schema, the string type for names and ids, and `reply`,
 * the one way a handler answers with JSON.
 */

/** The API's error body, for every error response (http/errors.ts and the 422 validation hook send it). */
export const ErrorDetail = z.object({ detail: z.string() }).openapi("ErrorDetail");

/**
 * A string that names or identifies something (ids, names, namespace labels, keys). NUL is refused up
 * front: PostgreSQL text cannot hold it, and every driver must answer the same request the same way.
 */
export function text() {
  // eslint-disable-next-line no-control-regex -- matching NUL is the point
  return z.string().regex(/^[^\u0000]*$/, "must not contain NUL (\\u0000) characters");
}

/**
 * Largest integer a request may give where storage compares it with a 32-bit integer (PostgreSQL
 * `integer`): assistant version numbers, namespace depth. Larger values could never match, and would
 * fail in the database rather than as bad input (docs/limits.md).
 */
export const MAX_INT32 = 2_147_483_647;

/** A JSON response of `schema`, for a route's `responses`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body. `required` makes the validator run even without a Content-Type (validating `{}`). */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/**
 * A handler's JSON answer: a Response, typed as the JSON response a `createRoute` handler must return.
 * The body is typed `any`: the zod schemas document the routes, while the values come from storage and
 * the engine already shaped, so their static types are not the schemas'.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonReply<S extends ContentfulStatusCode = 200> = Response & TypedResponse<any, S, "json">;

/** Answers with `value` as the JSON the API emits (core's wire normalization: messages, dates...). */
export function reply<S extends ContentfulStatusCode = 200>(c: Context, value: unknown, status?: S): JsonReply<S> {
  return c.json(toWireJson(value) as object, status ?? 200) as JsonReply<S>;
}
