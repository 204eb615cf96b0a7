import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { matchesAuthFilter } from "@agent-server/core";
import type { ThreadEvent } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { notFound } from "../http/errors.js";
import { filterMatches, type EventFilter } from "./subscriptions.js";
import { readAccess } from "./thread-reads.js";

/**
 * Whether the caller may see the thread's events: `threads:read` is authorized when the stream opens.
 * A thread that exists must match the handler's filter (else 404, before anything streams). A thread
 * that does not exist yet is allowed, as the SDK opens streams before its first `run.start` creates the
 * thread; the filter is then checked against the thread once it exists, before its first event goes out.
 */
export async function threadVisibility(c: Context<AppEnv>, threadId: string): Promise<() => Promise<boolean>> {
  const { filter, thread, hidden } = await readAccess({ deps: c.var.deps, auth: c.var.auth }, threadId);
  if (hidden) notFound(`Thread "${threadId}"`);
  if (thread) return async () => true;
  return deferredCheck(async () => {
    const created = await c.var.deps.storage.threads.get(threadId);
    return created != null && matchesAuthFilter(created.metadata, filter);
  });
}

/** Runs `check` once it is first asked, remembering a yes; a no stays no. */
function deferredCheck(check: () => Promise<boolean>): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () => (answer ??= check());
}

/**
 * A comment line this often keeps proxies from closing a quiet stream, and lets the SDK (whose idle
 * watchdog arms once it has seen two) notice a connection that died without a FIN and reconnect.
 */
const HEARTBEAT_MS = 15_000;

/**
 * `POST /threads/{thread_id}/stream/events`: the thread's events that match `filter`, as SSE. It starts
 * with the events kept after `since` (all kept ones without it: the SDK's replay contract, each new
 * stream replays the thread), then goes on live until the client closes it; it never ends by itself,
 * across runs. Each frame: `id:` the event's `event_id`, `event:` its method, `data:` the event's JSON.
 */
export function eventStreamResponse(
  c: Context<AppEnv>,
  threadId: string,
  filter: EventFilter,
  since: number | undefined,
  visible: () => Promise<boolean>,
): Response {
  const events = c.var.deps.engine.threadEvents.open(threadId, { after: since });
  c.req.raw.signal.addEventListener("abort", () => events.close(), { once: true });
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => events.close());
    const heartbeat = setInterval(() => void stream.write(": heartbeat\n\n").catch(() => events.close()), HEARTBEAT_MS);
    try {
      for await (const event of events) {
        if (!filterMatches(event, filter)) continue;
        if (!(await visible())) break;
        await stream.writeSSE(sseFrame(event));
      }
    } finally {
      clearInterval(heartbeat);
      events.close();
    }
  });
}

export function sseFrame(event: ThreadEvent): { id: string; event: string; data: string } {
  return { id: event.event_id, event: event.method, data: JSON.stringify(event) };
}
