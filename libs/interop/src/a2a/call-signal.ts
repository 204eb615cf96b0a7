import type { ServerCallContext } from "@a2a-js/sdk/server";

/** Key of the call's abort signal in `ServerCallContext.state` (set by every binding, see `callContext`). */
export const A2A_CALL_SIGNAL_KEY = "agent-server.a2a.callSignal";

/**
 * The signal that aborts when the caller of this call goes away (the HTTP connection closes, the gRPC call
 * is cancelled); undefined when called outside the transports. A stream that waits on something other than
 * a run — a task waiting for input — stops on it: the transports close a stream by `return()` on its
 * generator, which waits until the generator next yields, and a task may wait for input for days.
 */
export function callSignalOf(context: ServerCallContext | undefined): AbortSignal | undefined {
  return context?.state.get(A2A_CALL_SIGNAL_KEY) as AbortSignal | undefined;
}

/** Resolves when `signal` aborts (never without one); `dispose` drops the listener. */
export function whenAborted(signal: AbortSignal | undefined): { promise: Promise<void>; dispose(): void } {
  if (!signal) return { promise: new Promise<void>(() => undefined), dispose: () => undefined };
  if (signal.aborted) return { promise: Promise.resolve(), dispose: () => undefined };
  let onAbort = () => {};
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}
