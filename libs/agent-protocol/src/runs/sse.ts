import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { streamNamespaceFilter, type StreamEvent } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { clientErrorPayload } from "../http/errors.js";

export interface SseOptions {
  /** Extra response headers (Content-Location, Location). */
  headers?: Record<string, string>;
  /** Called once when the client goes away before the stream ended (to apply `on_disconnect: cancel`). */
  onDisconnect?: () => void | Promise<void>;
  /** Aborted when the response ends for any reason, so the engine can drop the subscription at once. */
  abort?: AbortController;
  /** Only events this keeps are sent (a join narrowed with `stream_mode`). */
  keep?: (event: StreamEvent) => boolean;
  /** False: no `id:` lines (the official server numbers a stateless run's stream only when joined). */
  ids?: boolean;
}

/**
 * Streams engine events as an SSE response (hono's `streamSSE`). Each frame is what
 * `@langchain/langgraph-sdk` parses (utils/sse.js): `event:` the stream mode (or `mode|ns` for
 * subgraphs), `data:` one line of JSON, `id:` the event's id (see `StreamEvent.id`). No heartbeats: the
 * official JS server sends none, and the SDK only arms its idle-reconnect watchdog once it has seen them.
 *
 * The client going away is seen two ways (node-server cancels the body stream, which aborts the
 * streaming API, and aborts the request's signal); either one ends the subscription and, when asked,
 * cancels the run. A stream that ended first is no disconnect.
 */
export function sseResponse(c: Context<AppEnv>, events: AsyncIterable<StreamEvent>, options: SseOptions = {}): Response {
  let finished = false;
  const disconnected = () => {
    if (finished) return;
    finished = true;
    options.abort?.abort();
    void Promise.resolve(options.onDisconnect?.()).catch((error) => console.error("on_disconnect failed", error));
  };
  c.req.raw.signal.addEventListener("abort", disconnected, { once: true });
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value);
  return streamSSE(c, async (stream) => {
    stream.onAbort(disconnected);
    try {
      for await (const event of events) {
        if (finished) break;
        if (options.keep && !options.keep(event)) continue;
        const id = event.id !== undefined && options.ids !== false ? event.id : undefined;
        await stream.writeSSE({ event: event.event, data: JSON.stringify(event.data ?? null), id });
      }
    } catch (error) {
      // Headers are gone already: the failure can only be reported in the stream, as an error event.
      if (!finished) await stream.writeSSE({ event: "error", data: JSON.stringify(clientErrorPayload(error)) });
    } finally {
      finished = true;
      options.abort?.abort();
    }
  });
}

/** What a client asked of a run stream's output (`RunStreamQuery` / `JoinStreamQuery`). */
export interface StreamOutputRequest {
  namespace?: string | string[];
  stream_end?: boolean;
}

/**
 * The namespace filter and whether an `end` event closes the stream: as asked, else the server's
 * setting (`AppDeps.streamEndEvent`, off by default: the official JS server sends no `end`).
 */
export function streamOutput(c: Context<AppEnv>, query: StreamOutputRequest): { keep?: (event: StreamEvent) => boolean; end: boolean } {
  const namespaces = query.namespace === undefined ? undefined : [query.namespace].flat();
  return { keep: streamNamespaceFilter(namespaces), end: query.stream_end ?? c.var.deps.streamEndEvent ?? false };
}

/** Events every given filter keeps (undefined filters keep everything). */
export function keepAll(...filters: Array<((event: StreamEvent) => boolean) | undefined>): ((event: StreamEvent) => boolean) | undefined {
  const active = filters.filter((f): f is (event: StreamEvent) => boolean => f !== undefined);
  if (active.length === 0) return undefined;
  // Every filter sees every event: a stateful one (namespaces) learns from those another drops.
  return (event) => active.map((keep) => keep(event)).every(Boolean);
}

/** Event names a stream mode produces (`messages` is sent as `messages/*`, `messages-tuple` as `messages`). */
export function keepModes(modes: readonly string[] | undefined): ((event: StreamEvent) => boolean) | undefined {
  if (!modes || modes.length === 0) return undefined;
  const wanted = new Set(modes);
  return (event) => {
    const base = event.event.split("|")[0]!;
    if (base === "metadata" || base === "error" || base === "end") return true;
    if (base.startsWith("messages/")) return wanted.has("messages");
    if (base === "messages") return wanted.has("messages-tuple");
    return wanted.has(base);
  };
}
