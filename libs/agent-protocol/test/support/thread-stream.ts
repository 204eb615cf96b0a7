import { expect } from "vitest";
import WebSocket from "ws";

/**
 * Raw helpers for the thread streaming protocol tests: commands and SSE streams over plain `fetch`, and
 * a WebSocket over `ws` that keeps every frame, for what the SDK hides (or cannot send: hostile input).
 */

/** One protocol event as it goes on the wire. */
export interface WireEvent {
  type: "event";
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; data: unknown };
}

/** A command's answer: the HTTP status and the JSON body (an envelope on 200). */
export interface CommandReply {
  status: number;
  body: {
    type?: string;
    id?: number | null;
    result?: Record<string, unknown>;
    error?: string;
    message?: string;
    detail?: string;
    meta?: Record<string, unknown>;
  };
}

let nextId = 1;

/** `POST /threads/{id}/commands` with `{ id, method, params }` (or `envelope` as given, for bad ones). */
export async function command(
  url: string,
  threadId: string,
  method: string,
  params?: unknown,
  options: { headers?: Record<string, string>; envelope?: unknown } = {},
): Promise<CommandReply> {
  const envelope = options.envelope ?? { id: nextId++, method, ...(params === undefined ? {} : { params }) };
  const response = await fetch(`${url}/threads/${threadId}/commands`, {
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: typeof envelope === "string" ? envelope : JSON.stringify(envelope),
  });
  const text = await response.text();
  let body: CommandReply["body"];
  try {
    body = text ? (JSON.parse(text) as CommandReply["body"]) : {};
  } catch {
    body = { detail: text };
  }
  return { status: response.status, body };
}

/** A command that must succeed: its result. */
export async function ok(url: string, threadId: string, method: string, params?: unknown, headers?: Record<string, string>) {
  const reply = await command(url, threadId, method, params, { headers });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.type, JSON.stringify(reply.body)).toBe("success");
  return reply.body.result!;
}

/** A command that must be refused with this protocol error code: its message. */
export async function refused(url: string, threadId: string, method: string, params: unknown, code: string): Promise<string> {
  const reply = await command(url, threadId, method, params);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ type: "error", error: code, message: expect.any(String) });
  return reply.body.message!;
}

export interface SseResult {
  status: number;
  events: WireEvent[];
  /** The body when the stream was refused (not `text/event-stream`). */
  body?: unknown;
}

/**
 * Opens `POST /threads/{id}/stream/events` with `body` and reads events until `until(events)` holds (or
 * `timeoutMs` passes: then whatever came), then closes it. A refused stream returns its status and body.
 */
export async function readSse(
  url: string,
  threadId: string,
  body: unknown,
  until: (events: WireEvent[]) => boolean,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SseResult> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 15_000);
  const events: WireEvent[] = [];
  try {
    const response = await fetch(`${url}/threads/${threadId}/stream/events`, {
      method: "POST",
      headers: { "content-type": "application/json", ...options.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal: abort.signal,
    });
    if (!response.headers.get("content-type")?.includes("text/event-stream")) {
      const text = await response.text();
      return { status: response.status, events, body: text ? (JSON.parse(text) as unknown) : undefined };
    }
    if (until(events)) return { status: response.status, events };
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.replace(/^data: ?/, ""))
          .join("\n");
        if (data) events.push(JSON.parse(data) as WireEvent);
      }
      if (until(events)) break;
    }
    return { status: response.status, events };
  } catch (error) {
    if (abort.signal.aborted) return { status: 200, events };
    throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** The root lifecycle statuses among `events`, in order. */
export function rootLifecycle(events: WireEvent[]): string[] {
  return events
    .filter((e) => e.method === "lifecycle" && e.params.namespace.length === 0)
    .map((e) => (e.params.data as { event: string }).event);
}

/** `until` for `readSse`: this many root terminal lifecycle events (completed, interrupted, failed) seen. */
export function terminals(count: number): (events: WireEvent[]) => boolean {
  return (events) => rootLifecycle(events).filter((s) => s !== "running").length >= count;
}

/** A WebSocket to `GET /threads/{id}/stream/events` that keeps every frame it receives. */
export class RawSocket {
  readonly frames: Array<Record<string, unknown>> = [];
  closed = false;
  /** The close frame's code and reason, once the socket closed. */
  closedWith: { code: number; reason: string } | undefined;
  private commandId = 1000;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => this.frames.push(JSON.parse(String(data)) as Record<string, unknown>));
    socket.on("close", (code, reason) => {
      this.closed = true;
      this.closedWith = { code, reason: reason.toString("utf8") };
    });
  }

  static async open(url: string, threadId: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/threads/${threadId}/stream/events`, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return new RawSocket(socket);
  }

  /** The events received so far (in order). */
  get events(): WireEvent[] {
    return this.frames.filter((f) => f.type === "event") as unknown as WireEvent[];
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === "string" || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
  }

  /** Sends a command and waits for the frame that answers it. */
  async command(method: string, params?: unknown): Promise<Record<string, unknown>> {
    const id = this.commandId++;
    this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return this.waitFor((f) => f.id === id && (f.type === "success" || f.type === "error"));
  }

  /** The first frame (from index `from`) that satisfies `check`, waiting for it. */
  async waitFor(check: (frame: Record<string, unknown>) => boolean, from = 0, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const found = this.frames.slice(from).find(check);
      if (found) return found;
      if (this.closed) throw new Error(`socket closed before the frame came; frames: ${JSON.stringify(this.frames).slice(0, 2000)}`);
      if (Date.now() > deadline) throw new Error(`frame not received in time; frames: ${JSON.stringify(this.frames).slice(0, 2000)}`);
      await sleep(20);
    }
  }

  /** Waits until `check` holds of the events received. */
  async waitForEvents(check: (events: WireEvent[]) => boolean, timeoutMs = 15_000): Promise<WireEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.events)) {
      if (this.closed || Date.now() > deadline)
        throw new Error(`events not received; got ${JSON.stringify(this.events.map((e) => e.seq))}`);
      await sleep(20);
    }
    return this.events;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.close();
    });
  }
}

/**
 * How a WebSocket upgrade was answered: the HTTP status it was refused with, or 101 and the code and
 * reason the server closed the accepted socket with (a refusal: 4000 + the HTTP status), or `open` when
 * it stayed open (the helper then closes it).
 */
export async function socketAnswer(
  url: string,
  threadId: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: number; reason?: string; open?: boolean }> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/threads/${threadId}/stream/events`, { headers });
  return new Promise((resolve, reject) => {
    socket.once("unexpected-response", (_request, response) => {
      resolve({ status: response.statusCode ?? 0 });
      response.resume();
      socket.terminate();
    });
    socket.once("open", () => {
      const stillOpen = setTimeout(() => {
        socket.close();
        resolve({ status: 101, open: true });
      }, 500);
      socket.once("close", (code, reason) => {
        clearTimeout(stillOpen);
        resolve({ status: 101, code, reason: reason.toString("utf8") });
      });
    });
    socket.once("error", (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A message input for the echo / chat graphs. */
export function says(content: string) {
  return { messages: [{ role: "user", content }] };
}
