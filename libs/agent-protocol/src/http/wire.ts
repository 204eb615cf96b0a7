import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { toWireJson } from "@agent-server/core";

/** Sends any value as the JSON the API emits (core's wire normalization). */
export function wire(c: Context, value: unknown, status: ContentfulStatusCode = 200): Response {
  return c.json(toWireJson(value) as object, status);
}
