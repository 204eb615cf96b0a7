import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env.js";

/**
 * Default largest request body: 25 MiB. Agent payloads carry messages with inline attachments (a few
 * base64 images or documents), far above typical JSON APIs; anything larger is a mistake or an attack that
 * would otherwise be buffered whole in memory before validation. Configurable (docs/limits.md).
 */
export const DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024;

/**
 * Refuses request bodies larger than `maxBytes` with 413 `{ detail }`: by Content-Length before anything
 * is read, and for chunked bodies (no Content-Length) as soon as the bytes read pass the limit. Runs
 * before authentication (whose handler may read the body) and before every route, the user's included.
 */
export function bodyLimitMiddleware(maxBytes: number = DEFAULT_MAX_BODY_BYTES): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Context<AppEnv>) => c.json({ detail: `Request body too large: the limit is ${maxBytes} bytes` }, 413);
  const counted = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    // Hono's middleware looks at `c.req.raw.body` first, for which @hono/node-server builds the whole
    // fetch Request (an AbortSignal, a body stream) that the routes' own body reads do without: a request
    // without a body, or with its length declared, is decided from its method and headers.
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") return next();
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      return Number.parseInt(declared, 10) > maxBytes ? tooLarge(c) : next();
    }
    return counted(c, next);
  };
}
