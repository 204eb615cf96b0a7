/** A JSON-RPC error answered at the HTTP level (no request id), in the shape the SDK's transport uses for its own. */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** `response`, calling `done` once its body has been read to the end, failed, or been cancelled (now, if it has none). */
export function whenBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          done();
        } else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
        done();
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      done();
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
