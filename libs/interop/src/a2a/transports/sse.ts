import type { Context } from "hono";
import { streamSSE } from "hono/streaming";

/**
 * How long (ms) a stream may go without an event before a comment line is written: a SubscribeToTask on
 * a task waiting for input may wait for days, and proxies close connections that stay silent (nginx
 * after 60 s by default). Clients skip comment lines (SSE: lines starting with ":").
 */
export const SSE_KEEPALIVE_MS = 15_000;

interface SseWriter {
  send(data: unknown, event?: string): Promise<void>;
  /** A comment line, which no client takes for an event. */
  keepAlive(): Promise<void>;
}

/**
 * SSE as the SDK's express transports write it (`data: <json>`, errors as `event: error`), through
 * hono's `streamSSE`. Nginx-style proxies would buffer the stream; `X-Accel-Buffering: no` asks them not to.
 */
function sse(c: Context, write: (writer: SseWriter) => Promise<void>, onAbort?: () => void): Response {
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    if (onAbort) stream.onAbort(onAbort);
    await write({
      send: (data, event) => stream.writeSSE({ data: JSON.stringify(data), event }),
      keepAlive: async () => {
        await stream.write(": keep-alive\n\n");
      },
    });
  });
}

/** A stream of exactly one `error` event (a refusal that must still be answered as SSE). */
export function sseErrorResponse(c: Context, data: unknown): Response {
  return sse(c, (writer) => writer.send(data, "error"));
}

/**
 * An SSE response over an iterator whose first result was already pulled (so errors before the stream
 * starts could still be answered as plain JSON). Each event goes through `encode`; an error mid-stream is
 * written as an `error` event through `encodeError`, then the stream ends. The iterator is closed when the
 * client goes away. While no event comes for `keepAliveMs`, a comment line is written (`SSE_KEEPALIVE_MS`).
 */
export function sseResponse<T>(
  c: Context,
  first: IteratorResult<T, unknown>,
  iterator: AsyncIterator<T, unknown, undefined>,
  encode: (event: T) => unknown,
  encodeError: (error: unknown) => unknown,
  keepAliveMs = SSE_KEEPALIVE_MS,
): Response {
  let gone = false;
  const close = () => {
    gone = true;
    void Promise.resolve(iterator.return?.(undefined)).catch(() => undefined);
  };
  return sse(
    c,
    async (writer) => {
      /** The next event, with a comment written every `keepAliveMs` it takes; done once the client left. */
      const next = async (): Promise<IteratorResult<T, unknown>> => {
        const pending = iterator.next();
        for (;;) {
          let timer: NodeJS.Timeout | undefined;
          const quiet = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), keepAliveMs)));
          const result = await Promise.race([pending, quiet]).finally(() => clearTimeout(timer));
          if (result) return result;
          if (gone) return { done: true, value: undefined };
          await writer.keepAlive();
        }
      };
      try {
        for (let event = first; !event.done && !gone; event = await next()) await writer.send(encode(event.value));
      } catch (error) {
        if (!gone) await writer.send(encodeError(error), "error");
      }
    },
    close,
  );
}
