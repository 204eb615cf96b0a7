import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConflictError, InvalidInputError, NotFoundError, WireSerializationError } from "@agent-server/core";

/** Maps errors to the API's JSON error shape `{ detail }`; anything unexpected is a logged 500. */
export function errorResponse(error: Error, c: Context): Response {
  if (error instanceof HTTPException) {
    // Hono's validator answers an unparseable body with 400; the API's shape for bad input is 422.
    if (error.status === 400 && /malformed json/i.test(error.message)) {
      return c.json({ detail: `invalid JSON body: ${error.message}` }, 422);
    }
    if (error.res) return error.res;
    return c.json({ detail: error.message }, error.status);
  }
  if (error instanceof NotFoundError) return c.json({ detail: error.message }, 404);
  if (error instanceof ConflictError) return c.json({ detail: error.message }, 409);
  if (error instanceof InvalidInputError || error instanceof WireSerializationError) {
    return c.json({ detail: error.message }, 422);
  }
  if (error instanceof SyntaxError) return c.json({ detail: `invalid JSON: ${error.message}` }, 422);
  console.error(error);
  return c.json({ detail: "Internal server error" }, 500);
}

export function notFound(what: string): never {
  throw new HTTPException(404, { message: `${what} not found` });
}
