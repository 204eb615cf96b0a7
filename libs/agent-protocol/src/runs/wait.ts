import type { Context } from "hono";
import { toWireJson, type Thread } from "@agent-server/core";
import type { RunEnd } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import type { JsonReply } from "../http/route-helpers.js";
import { clientErrorPayload } from "../http/errors.js";

/** How often a waiting response writes a newline so proxies and clients do not time the request out. */
const KEEP_ALIVE_MS = 1000;

const encoder = new TextEncoder();

/**
 * Answers with JSON once `result` resolves. Within the first second, as a plain JSON response; after
 * that, as the official server's `waitKeepAlive` (langgraph-api utils/hono.mts) does for `/runs/wait`:
 * the status line goes out and a newline every second until the end, which the SDK's `response.json()`
 * skips as leading whitespace. A failure after the headers went
 * out can only be reported in the body: `{"__error__": {error, message}}`, which the SDK raises.
 * Typed as a JSON reply: what the body ends up holding is the wire JSON its routes declare.
 */
export async function waitResponse(
  c: Context<AppEnv>,
  result: Promise<unknown>,
  options: { headers?: Record<string, string>; onDisconnect?: () => void | Promise<void> } = {},
): Promise<JsonReply> {
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const disconnected = () => {
    clearInterval(timer);
    if (finished) return;
    finished = true;
    void Promise.resolve(options.onDisconnect?.()).catch((error) => console.error("on_disconnect failed", error));
  };
  c.req.raw.signal.addEventListener("abort", disconnected, { once: true });
  const json = settledJson(result);
  // Most runs end well before the first keep-alive newline is due: those get a plain JSON response (one
  // write, a Content-Length) instead of a streamed body.
  let grace: NodeJS.Timeout | undefined;
  const early = await Promise.race([json, new Promise<undefined>((resolve) => (grace = setTimeout(resolve, KEEP_ALIVE_MS, undefined)))]);
  clearTimeout(grace);
  // (A client that left meanwhile gets an empty body nobody reads: no keep-alive timer for it.)
  if (early !== undefined || finished) {
    finished = true;
    c.req.raw.signal.removeEventListener("abort", disconnected);
    return c.body(early ?? "", 200, { "Content-Type": "application/json", ...options.headers }) as unknown as JsonReply;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // The first keep-alive is due now: a second has passed.
      controller.enqueue(encoder.encode("\n"));
      timer = setInterval(() => {
        if (!finished) controller.enqueue(encoder.encode("\n"));
      }, KEEP_ALIVE_MS);
      void json.then((text) => {
        clearInterval(timer);
        if (finished) return;
        finished = true;
        controller.enqueue(encoder.encode(text));
        controller.close();
      });
    },
    cancel() {
      disconnected();
    },
  });
  return c.body(body, 200, { "Content-Type": "application/json", ...options.headers }) as unknown as JsonReply;
}

/** The body `result` ends as: its wire JSON, or `{"__error__": ...}` when it failed. Never rejects. */
function settledJson(result: Promise<unknown>): Promise<string> {
  return result.then(
    (value) => {
      try {
        return JSON.stringify(toWireJson(value ?? null));
      } catch (error) {
        return JSON.stringify({ __error__: clientErrorPayload(error) });
      }
    },
    (error: unknown) => JSON.stringify({ __error__: clientErrorPayload(error) }),
  );
}

/**
 * What `/wait` and `/join` answer for a run that ended: its error as `__error__` (the SDK's `wait` raises
 * it); otherwise the final state values, or the thread's values when the run produced none (cancelled
 * before it started, rolled back), as the official `Runs.join` falls back to `thread.values`. A run that
 * stopped with work left also carries `__interrupt__`, as the official server's last `values` chunk does,
 * so a caller can tell the thread waits: the pending interrupts after `interrupt()`, `[]` at a breakpoint.
 */
export async function endValues(end: RunEnd, threadOf: () => Promise<Thread | null>): Promise<unknown> {
  if (end.error) return { __error__: end.error };
  // Settlement here tells how it left the thread; otherwise (another process, a cancel) it is read.
  if (end.values !== null && end.thread) return withPendingInterrupts(end.values, end.thread);
  const thread = await threadOf();
  return withPendingInterrupts(end.values ?? thread?.values ?? null, thread);
}

function withPendingInterrupts(values: unknown, thread: Pick<Thread, "status" | "interrupts"> | null): unknown {
  if (thread?.status !== "interrupted" || values === null || typeof values !== "object") return values;
  return { ...values, __interrupt__: Object.values(thread.interrupts ?? {}).flat() };
}
