import { A2A_VERSION_HEADER, AgentCard } from "@a2a-js/sdk";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { Hono, type Context } from "hono";
import type { Assistant } from "@agent-server/core";
import type { RunAuthContext } from "@agent-server/engine";
import { agentCardFor } from "./agent-card.js";
import { TaskRequestHandler, type A2AHandlerDeps } from "./request-handler.js";

/**
 * A2A routes, one agent per assistant:
 * - GET  /a2a/{assistant_id}/.well-known/agent-card.json — the card. Clients resolve the card path
 *   relative to the base URL, so they must use `createFromUrl("http://host/a2a/<id>/")` (trailing slash).
 * - POST /a2a/{assistant_id} — JSON-RPC through the SDK's transport handler and our own request handler.
 *
 * Built from the deps of the app it is mounted in (agent-protocol's `AppDeps.extraRoutes`), which it
 * reads structurally: interop sits beside agent-protocol over the engine and must not import it.
 */
export function a2aRoutes(deps: A2AHandlerDeps): Hono {
  const app = new Hono();

  app.get("/a2a/:assistant_id/.well-known/agent-card.json", async (c) => {
    const assistant = await findAssistant(deps, c.req.param("assistant_id"));
    if (!assistant) return c.json({ detail: `Assistant "${c.req.param("assistant_id")}" not found` }, 404);
    return c.json(AgentCard.toJSON(agentCardFor(assistant, endpoint(c, assistant))) as object);
  });

  app.post("/a2a/:assistant_id", async (c) => {
    const assistant = await findAssistant(deps, c.req.param("assistant_id"));
    if (!assistant) return c.json({ detail: `Assistant "${c.req.param("assistant_id")}" not found` }, 404);
    const card = agentCardFor(assistant, endpoint(c, assistant));
    const handler = new TaskRequestHandler(deps, assistant, card, runAuth(c));
    const context = new ServerCallContext({ requestedVersion: c.req.header(A2A_VERSION_HEADER) || undefined });
    const body = await c.req.text();
    try {
      // A missing header means 0.3, which step 1 does not speak yet: the SDK's check answers that.
      validateVersion(context.requestedVersion, card, "JSONRPC");
    } catch (error) {
      return c.json({ jsonrpc: "2.0", id: requestId(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const response = await new JsonRpcTransportHandler(handler).handle(body, context);
    if (Symbol.asyncIterator in response) {
      // Streaming methods are unsupported in step 1: their generators fail on the first pull, and that
      // error is answered as a plain JSON-RPC error (as the SDK's express handler does before a stream starts).
      try {
        const first = await response[Symbol.asyncIterator]().next();
        if (!first.done) return c.json({ jsonrpc: "2.0", id: requestId(body), error: { code: -32004, message: "streaming is not supported" } });
        return c.json({ jsonrpc: "2.0", id: requestId(body), result: null });
      } catch (error) {
        return c.json({ jsonrpc: "2.0", id: requestId(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
      }
    }
    return c.json(response);
  });

  return app;
}

async function findAssistant(deps: A2AHandlerDeps, idOrGraph: string): Promise<Assistant | null> {
  return deps.storage.assistants.get(deps.engine.registry.resolveAssistantId(idOrGraph));
}

/** The JSON-RPC URL as this request reached us (the path keeps the id the client used: a graph name works too). */
function endpoint(c: Context, assistant: Assistant): string {
  const url = new URL(c.req.url);
  return `${url.origin}/a2a/${encodeURIComponent(c.req.param("assistant_id") ?? assistant.assistant_id)}`;
}

/**
 * The caller as agent-protocol's auth middleware left it in `c.var.auth` (read structurally). Only the
 * identity is carried into the run, as the runs routes do; per-resource `authorize()` scoping of A2A
 * tasks is not applied in step 1.
 */
function runAuth(c: Context): RunAuthContext | undefined {
  const auth = (c.var as Record<string, unknown>).auth as { user?: { identity?: unknown; permissions?: unknown } } | undefined;
  const user = auth?.user;
  if (!user || typeof user.identity !== "string") return undefined;
  const permissions = Array.isArray(user.permissions) ? user.permissions.map(String) : [];
  return { user: user as RunAuthContext["user"], permissions };
}

function requestId(body: string): string | number | null {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}
