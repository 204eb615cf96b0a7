/** SSE framing as the SDK's express transports write it (`data: <json>\n\n`, errors as `event: error`). */
export const SSE_HEADERS: Record<string, string> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export function sseErrorEvent(data: unknown): string {
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * An SSE response over an iterator whose first result was already pulled (so errors before the stream
 * starts could still be answered as plain JSON). Each event goes through `encode`; an error mid-stream is
 * written as an `error` event through `encodeError`, then the stream ends. The iterator is closed when the
 * client goes away.
 */
export function sseResponse<T>(
  first: IteratorResult<T, unknown>,
  iterator: AsyncIterator<T, unknown, undefined>,
  encode: (event: T) => unknown,
  encodeError: (error: unknown) => unknown,
): Response {
  const encoder = new TextEncoder();
  let pending: IteratorResult<T, unknown> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next: IteratorResult<T, unknown> = pending ?? (await iterator.next());
        pending = undefined;
        if (next.done) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(sseEvent(encode(next.value))));
      } catch (error) {
        controller.enqueue(encoder.encode(sseErrorEvent(encodeError(error))));
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
