import type { Context } from "hono";
import { streamSSE } from "hono/streaming";

/**
 * SSE as the SDK's express transports write it (`data: <json>`, errors as `event: error`), through
 * hono's `streamSSE`. Nginx-style proxies would buffer the stream; `X-Accel-Buffering: no` asks them not to.
 */
function sse(c: Context, write: (send: (data: unknown, event?: string) => Promise<void>) => Promise<void>, onAbort?: () => void): Response {
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    if (onAbort) stream.onAbort(onAbort);
    await write((data, event) => stream.writeSSE({ data: JSON.stringify(data), event }));
  });
}

/** A stream of exactly one `error` event (a refusal that must still be answered as SSE). */
export function sseErrorResponse(c: Context, data: unknown): Response {
  return sse(c, (send) => send(data, "error"));
}

/**
 * An SSE response over an iterator whose first result was already pulled (so errors before the stream
 * starts could still be answered as plain JSON). Each event goes through `encode`; an error mid-stream is
 * written as an `error` event through `encodeError`, then the stream ends. The iterator is closed when the
 * client goes away.
 */
export function sseResponse<T>(
  c: Context,
  first: IteratorResult<T, unknown>,
  iterator: AsyncIterator<T, unknown, undefined>,
  encode: (event: T) => unknown,
  encodeError: (error: unknown) => unknown,
): Response {
  let gone = false;
  const close = () => {
    gone = true;
    void Promise.resolve(iterator.return?.(undefined)).catch(() => undefined);
  };
  return sse(
    c,
    async (send) => {
      try {
        for (let next = first; !next.done && !gone; next = await iterator.next()) await send(encode(next.value));
      } catch (error) {
        if (!gone) await send(encodeError(error), "error");
      }
    },
    close,
  );
}
