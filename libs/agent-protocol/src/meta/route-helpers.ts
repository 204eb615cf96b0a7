import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { wire } from "../http/wire.js";

/**
 * Small helpers shared by the assistants, store, crons and internal routers: OpenAPI request/response
 * declarations, and `reply`, which sends through `wire` (core's wire normalization) typed as the JSON
 * response a `createRoute` handler must return (`wire` itself returns a plain Response).
 */

/** The API's error body (http/errors.ts and the 422 validation hook send it). */
export const ErrorDetail = z.object({ detail: z.string() }).openapi("ErrorDetail");

/**
 * A string that names or identifies something (ids, names, namespace labels, keys). NUL is refused up
 * front: PostgreSQL text cannot hold it, and every driver must answer the same request the same way.
 */
export function text() {
  return z.string().regex(/^[^\u0000]*$/, "must not contain NUL (\\u0000) characters");
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body. `required` makes the validator run even without a Content-Type (validating `{}`). */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function reply<S extends ContentfulStatusCode = 200>(c: Context, value: unknown, status?: S): TypedResponse<any, S, "json"> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return wire(c, value, status ?? 200) as unknown as TypedResponse<any, S, "json">;
}
