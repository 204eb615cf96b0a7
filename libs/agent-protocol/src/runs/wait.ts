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
 * Answers with JSON once `result` resolves, writing a newline every second until then, as the official
 * server's `waitKeepAlive` (langgraph-api utils/hono.mts) does for `/runs/wait`: the status line goes out
 * at once, and the SDK's `response.json()` skips the leading whitespace. A failure after the headers went
 * out can only be reported in the body: `{"__error__": {error, message}}`, which the SDK raises.
 * Typed as a JSON reply: what the body ends up holding is the wire JSON its routes declare.
 */
export function waitResponse(
  c: Context<AppEnv>,
  result: Promise<unknown>,
  options: { headers?: Record<string, string>; onDisconnect?: () => void | Promise<void> } = {},
): JsonReply {
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const disconnected = () => {
    clearInterval(timer);
    if (finished) return;
    finished = true;
    void Promise.resolve(options.onDisconnect?.()).catch((error) => console.error("on_disconnect failed", error));
  };
  c.req.raw.signal.addEventListener("abort", disconnected, { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        if (!finished) controller.enqueue(encoder.encode("\n"));
      }, KEEP_ALIVE_MS);
      const send = (value: unknown) => {
        clearInterval(timer);
        if (finished) return;
        finished = true;
        controller.enqueue(encoder.encode(JSON.stringify(value)));
        controller.close();
      };
      result.then(
        (value) => {
          try {
            send(toWireJson(value ?? null));
          } catch (error) {
            send({ __error__: clientErrorPayload(error) });
          }
        },
        (error) => send({ __error__: clientErrorPayload(error) }),
      );
    },
    cancel() {
      disconnected();
    },
  });
  return c.body(body, 200, { "Content-Type": "application/json", ...options.headers }) as unknown as JsonReply;
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
  const thread = await threadOf();
  const values = end.values ?? thread?.values ?? null;
  if (thread?.status !== "interrupted" || values === null || typeof values !== "object") return values;
  return { ...values, __interrupt__: Object.values(thread.interrupts ?? {}).flat() };
}
