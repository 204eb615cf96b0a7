import type { MiddlewareHandler } from "hono";
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
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => c.json({ detail: `Request body too large: the limit is ${maxBytes} bytes` }, 413),
  });
}
