import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  ConflictError,
  EncryptionKeyError,
  InvalidInputError,
  NotFoundError,
  storageFault,
  UpstreamError,
  WireSerializationError,
} from "@agent-server/core";

/** What a client is told about a failure the server did not expect; the real error goes to the log. */
export const INTERNAL_ERROR_DETAIL = "Internal server error";

/**
 * The status and `detail` a client may see for `error`. An `HTTPException` is an answer someone chose
 * for the client (routes, validation, auth, and a custom auth handler's own, a 5xx included), and the
 * domain errors of core describe the request: they keep their message. A storage fault (the database
 * unreachable, its disk full: `storageFault`) is the infrastructure's: 503 (507 for a full disk) with a
 * `detail` naming it and the seconds to wait (`Retry-After`), so clients and load balancers back off and
 * retry. Anything else is a bug whose text (a TypeError, a driver message, a JSON.parse snippet of stored
 * data) says nothing to the caller and may quote server internals: it is logged, and the client gets a
 * generic 500.
 */
export function clientError(error: unknown): { status: ContentfulStatusCode; detail: string; retryAfterSeconds?: number } {
  if (error instanceof HTTPException) {
    // Hono's validator answers an unparseable body with 400; the API's shape for bad input is 422.
    if (error.status === 400 && /malformed json/i.test(error.message))
      return { status: 422, detail: `invalid JSON body: ${error.message}` };
    return { status: error.status as ContentfulStatusCode, detail: error.message };
  }
  if (error instanceof NotFoundError) return { status: 404, detail: error.message };
  if (error instanceof ConflictError) return { status: 409, detail: error.message };
  if (error instanceof InvalidInputError || error instanceof WireSerializationError) return { status: 422, detail: error.message };
  if (error instanceof UpstreamError) return { status: 502, detail: error.message };
  // Stored data this server cannot open (its key was not given, or the row was altered): the operator's
  // to fix, said with the key's id (never the key), not a generic error nor garbage as data.
  if (error instanceof EncryptionKeyError) {
    console.error(`encryption: ${error.message}`);
    return { status: 500, detail: `Stored data cannot be read: ${error.message}` };
  }
  const fault = storageFault(error);
  if (fault) {
    console.error(`storage fault: ${fault.detail}: ${error instanceof Error ? error.message : String(error)}`);
    return { status: fault.status, detail: fault.detail, retryAfterSeconds: fault.retryAfterSeconds };
  }
  console.error(error);
  return { status: 500, detail: INTERNAL_ERROR_DETAIL };
}

/**
 * An error as a failed stream's `error` event or a wait body's error carries it: `{ error, message }`.
 * Only errors that describe the request keep their text; anything else is logged and generic.
 */
export function clientErrorPayload(error: unknown): { error: string; message: string } {
  const { status, detail } = clientError(error);
  if (status === 503 || status === 507) return { error: "StorageUnavailable", message: detail };
  if (status >= 500) return { error: "InternalServerError", message: detail };
  return { error: error instanceof Error ? error.name : "Error", message: detail };
}

/** Maps errors to the API's JSON error shape `{ detail }`; anything unexpected is a logged, generic 500. */
export function errorResponse(error: Error, c: Context): Response {
  // An HTTPException that carries its own response (auth's `{ detail }` with WWW-Authenticate).
  if (error instanceof HTTPException && error.res) return error.res;
  const { status, detail, retryAfterSeconds } = clientError(error);
  return c.json({ detail }, status, retryAfterSeconds === undefined ? undefined : { "Retry-After": String(retryAfterSeconds) });
}

export function notFound(what: string): never {
  throw new HTTPException(404, { message: `${what} not found` });
}
