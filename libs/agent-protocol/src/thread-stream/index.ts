import { createRoute, z } from "@hono/zod-openapi";
import { upgradeWebSocket } from "@hono/node-server";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../app-env.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { ThreadIdParam } from "../runs/schemas.js";
import { handleCommand, httpSubscriptionHost } from "./commands.js";
import { eventStreamResponse, threadVisibility } from "./event-stream.js";
import { refusalCloseCode, refuseSocket } from "./socket-refusal.js";
import { ProtocolSocketSession } from "./socket-session.js";
import { parseFilter } from "./subscriptions.js";
import type { CommandCaller } from "./thread-reads.js";

/**
 * The thread streaming protocol (Agent Protocol v2; `@langchain/protocol`), which the SDK's
 * `client.threads.stream()` / `ThreadStream` and `@langchain/react`'s `useStream` speak: commands over
 * `POST /threads/{thread_id}/commands`, events over SSE (`POST .../stream/events`) or a WebSocket
 * (`GET .../stream/events`). docs/thread-streaming.md tells what a client does and how it differs from
 * the official servers.
 */

const tags = ["Thread Streaming"];
const Command = z
  .object({
    id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ description: "Echoed in the response." }),
    method: z.string().max(200).openapi({ description: "run.start, input.respond, input.inject, state.get, ..." }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ProtocolCommand");
const CommandAnswer = z
  .object({
    type: z.enum(["success", "error"]),
    id: z.number().int().nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.string().optional().openapi({ description: "invalid_argument, no_such_run, no_such_interrupt, ..." }),
    message: z.string().optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ProtocolCommandResponse");
const EventStreamRequest = z
  .object({
    channels: z
      .array(
        z.union([
          z.enum(["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"]),
          z.string().regex(/^custom:./, "a named custom channel is custom:<name>"),
        ]),
      )
      .min(1)
      .max(64)
      .openapi({ description: "The channels wanted; custom:<name> for one stream transformer's channel." }),
    namespaces: z.array(z.array(z.string())).optional().openapi({ description: "Namespace prefixes; all namespaces when absent." }),
    depth: z.number().int().min(0).optional().openapi({ description: "How far below a prefix events may be." }),
    since: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "Only events after this seq." }),
  })
  .strict()
  .openapi("EventStreamRequest");
const invalid = jsonResponse(ErrorDetail, "Invalid command envelope or stream request");
/**
 * The WebSocket route reads its thread id as text and checks it itself: a bad id must close an upgraded
 * socket with 4422 (socket-refusal.ts), which the validation hook's plain 422 would not.
 */
const SocketThreadParam = z.object({
  thread_id: z.string().openapi({ param: { name: "thread_id", in: "path" }, description: "The thread (a UUID)." }),
});
const notFound = jsonResponse(ErrorDetail, "The thread exists but the caller may not see it");

function caller(c: Context<AppEnv>): CommandCaller {
  return { deps: c.var.deps, auth: c.var.auth, headers: c.req.raw.headers };
}

export const threadStream = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/commands",
      tags,
      summary: "Send a thread streaming protocol command",
      description:
        "Commands: run.start, input.respond, input.inject, state.get, state.listCheckpoints, state.fork, agent.getTree, " +
        "subscription.subscribe / unsubscribe / reconnect. Protocol errors answer 200 with an error envelope.",
      request: { params: ThreadIdParam, body: jsonBody(Command) },
      responses: { 200: jsonResponse(CommandAnswer, "The command's success or error envelope"), 422: invalid },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const who = caller(c);
      const answer = await handleCommand(who, thread_id, c.req.valid("json"), httpSubscriptionHost(who, thread_id), { authAsHttp: true });
      return reply(c, answer);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/stream/events",
      tags,
      summary: "Stream the thread's protocol events (SSE)",
      description:
        "Replays the thread's kept events (after `since`), then streams new ones across runs until the client closes it. " +
        "A thread that does not exist yet is waited for.",
      request: { params: ThreadIdParam, body: jsonBody(EventStreamRequest) },
      responses: {
        200: {
          description: "Server-sent events: `id` the event_id, `event` the method, `data` the event",
          content: { "text/event-stream": { schema: z.string() } },
        },
        404: notFound,
        422: invalid,
      },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const body = c.req.valid("json");
      const filter = parseFilterOr422(body);
      const visible = await threadVisibility(c, thread_id);
      return eventStreamResponse(c, thread_id, filter, body.since, visible) as never;
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/stream/events",
      tags,
      summary: "Thread streaming protocol over a WebSocket",
      description:
        "Upgrade to a WebSocket: send commands as JSON frames; subscription.subscribe adds a subscription whose events " +
        "(replayed, then live) arrive on the socket after its success frame. A refused upgrade is accepted, then closed " +
        "with 4000 + the HTTP status (4403, 4404, 4422) and the detail as the reason, as the SDK's transport reads it.",
      request: { params: SocketThreadParam },
      responses: {
        101: { description: "Switching to the WebSocket protocol (then closed with 4403, 4404 or 4422 when refused)" },
        404: notFound,
        422: invalid,
        426: jsonResponse(ErrorDetail, "Not a WebSocket upgrade"),
      },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const upgradable = c.req.header("upgrade")?.toLowerCase() === "websocket" && (c.env as { incoming?: unknown } | undefined)?.incoming;
      let visible: () => Promise<boolean>;
      try {
        const id = ThreadIdParam.shape.thread_id.safeParse(thread_id);
        if (!id.success) throw new HTTPException(422, { message: `thread_id: ${id.error.issues[0]?.message ?? "invalid UUID"}` });
        visible = await threadVisibility(c, thread_id);
      } catch (error) {
        if (upgradable) return refuseSocket(c, error) as never;
        throw error;
      }
      if (!upgradable) return c.json({ detail: "This path is a WebSocket: send an Upgrade request (or POST for SSE)" }, 426) as never;
      const who = caller(c);
      let session: ProtocolSocketSession | undefined;
      return upgradeWebSocket(c, {
        onOpen: (_event, ws) => {
          // A thread created after the socket opened, that the caller may not see: closed as not found.
          const hidden = () => ws.close(refusalCloseCode(404), `Thread "${thread_id}" not found`);
          session = new ProtocolSocketSession(who, thread_id, (text) => ws.send(text), visible, hidden);
        },
        onMessage: (event) => {
          const data = event.data;
          session?.receive(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer).toString("utf8"));
        },
        onClose: () => session?.close(),
        onError: () => session?.close(),
      }) as never;
    },
  );

function parseFilterOr422(body: z.output<typeof EventStreamRequest>) {
  try {
    return parseFilter("stream/events", body);
  } catch (error) {
    throw new HTTPException(422, { message: (error as Error).message });
  }
}
