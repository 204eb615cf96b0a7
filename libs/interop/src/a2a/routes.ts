import type { AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Assistant } from "@agent-server/core";
import { agentCardFor, agentCardJson } from "./agent-card.js";
import type { A2ACardConfig, AgentCardOptions, ExtendedCardHook } from "./card/options.js";
import { registerA2APaths } from "./openapi.js";
import { registerPushDelivery } from "./push/push-delivery.js";
import { consoleA2ALogger, type A2ALogger } from "./request-errors.js";
import { TaskRequestHandler, type A2AHandlerDeps } from "./request-handler.js";
import { requestScope, type A2ARequestScope, type StructuralRequestAuth } from "./request-scope.js";
import { handleHttpJson } from "./transports/http-json.js";
import { handleJsonRpc } from "./transports/json-rpc.js";

export interface A2ARoutesOptions {
  /**
   * langgraph.json `a2a.default_assistant` (assistant id or graph name): the agent the domain-root card
   * `/.well-known/agent-card.json` describes. Without it, the only graph when there is exactly one.
   */
  defaultAssistant?: string | undefined;
  /**
   * Where errors that clients only see as "Internal error" are reported, with their stack (the server's
   * pino logger fits); console.error when unset.
   */
  logger?: A2ALogger | undefined;
  /** langgraph.json `a2a.card`, `a2a.agents` and `a2a.security`: what the cards say (docs/a2a.md, "Card configuration"). */
  cardConfig?: A2ACardConfig | undefined;
  /**
   * The server authenticates requests (langgraph.json `auth.path`): cards declare the security scheme,
   * and the extended card is only given to authenticated callers. Default false: the routes cannot tell
   * an `Auth` that authenticates from one that does not (agent-server passes `authenticatesRequests(auth)`).
   */
  authConfigured?: boolean | undefined;
  /** langgraph.json `a2a.extended_card`, loaded (the server loads the file or module at start-up). */
  extendedCard?: ExtendedCardHook | undefined;
}

/**
 * A2A routes, one agent per assistant (a graph name works wherever an assistant id does):
 * - GET  /a2a/{assistant_id}/.well-known/agent-card.json — the card. Clients resolve the card path
 *   relative to the base URL, so they use `createFromUrl("http://host/a2a/<id>/")` (trailing slash).
 * - GET  /.well-known/agent-card.json?assistant_id=<id> — the same card (LangGraph's path); without
 *   `assistant_id` the default assistant's card, or 404 when there is none.
 * - POST /a2a/{assistant_id} — JSON-RPC: v1.0 (`A2A-Version: 1.0`) and legacy v0.3 (no header).
 * - /a2a/{assistant_id}/message:send, /tasks/{id}, ... — HTTP+JSON v1.0.
 *
 * Every route runs behind agent-protocol's auth middleware; the caller (`c.var.auth`, read structurally:
 * interop must not import agent-protocol) becomes the request's `A2ARequestScope`, handed to the request
 * handler and put into the SDK's `ServerCallContext.state` (see request-scope.ts).
 *
 * With a driver that keeps push notification configs, building the routes also registers push delivery
 * on the engine (once per engine): settled runs of A2A tasks enqueue their notifications.
 *
 * The app is an OpenAPIHono so the routes' documentation (openapi.ts) travels with them: mounted with
 * `app.route` on agent-protocol's app, its registry is merged into /openapi.json. The routes themselves
 * are plain Hono routes (no zod validation: A2A errors keep the protocol's shapes).
 */
export function a2aRoutes(deps: A2AHandlerDeps, options: A2ARoutesOptions = {}): OpenAPIHono {
  const app = new OpenAPIHono();
  registerA2APaths(app.openAPIRegistry);
  const logger = options.logger ?? consoleA2ALogger;
  registerPushDelivery(deps);
  const cardOptions = agentCardOptions(deps, options, logger);

  app.get("/.well-known/agent-card.json", async (c) => {
    const requested = c.req.query("assistant_id") || options.defaultAssistant || onlyGraph(deps);
    if (!requested) {
      return c.json(
        {
          detail:
            "No default A2A assistant: pass ?assistant_id=<assistant id or graph name>, or set a2a.default_assistant in langgraph.json",
        },
        404,
      );
    }
    const assistant = await findAssistant(deps, requested);
    if (!assistant) return c.json({ detail: `Assistant "${requested}" not found` }, 404);
    return c.json(agentCardJson(agentCardFor(assistant, endpoint(c, requested), cardOptions)));
  });

  app.get("/a2a/:assistant_id/.well-known/agent-card.json", async (c) => {
    const id = c.req.param("assistant_id");
    const assistant = await findAssistant(deps, id);
    if (!assistant) return c.json({ detail: `Assistant "${id}" not found` }, 404);
    return c.json(agentCardJson(agentCardFor(assistant, endpoint(c, id), cardOptions)));
  });

  app.post("/a2a/:assistant_id", async (c) => {
    const resolved = await resolve(deps, c, cardOptions);
    if (resolved instanceof Response) return resolved;
    return handleJsonRpc(c, resolved.handler, resolved.card, resolved.scope, logger);
  });

  app.on(["GET", "POST", "DELETE"], "/a2a/:assistant_id/*", async (c) => {
    const id = c.req.param("assistant_id");
    const prefix = `/a2a/${encodeURIComponent(id)}`;
    const path = c.req.path;
    const subpath = path.startsWith(prefix) ? path.slice(prefix.length) : path.slice(path.indexOf("/", "/a2a/".length));
    const resolved = await resolve(deps, c, cardOptions);
    if (resolved instanceof Response) return resolved;
    return handleHttpJson(c, subpath, resolved.handler, resolved.card, resolved.scope, logger);
  });

  return app;
}

/** The assistant, its card, the caller's scope and a request handler for this one request. */
async function resolve(
  deps: A2AHandlerDeps,
  c: Context,
  cardOptions: AgentCardOptions,
): Promise<Response | { handler: A2ARequestHandler; card: AgentCard; scope: A2ARequestScope }> {
  const id = c.req.param("assistant_id") ?? "";
  const assistant = await findAssistant(deps, id);
  if (!assistant) return c.json({ detail: `Assistant "${id}" not found` }, 404);
  const card = agentCardFor(assistant, endpoint(c, id), cardOptions);
  const scope = requestScope((c.var as Record<string, unknown>).auth as StructuralRequestAuth | undefined);
  // The scope also travels in every call's ServerCallContext.state (requestScopeOf(context)).
  const handler = new TaskRequestHandler(deps, assistant, card, scope.auth, cardOptions);
  return { handler, card, scope };
}

/** The card options of this app, built once from the routes' options, the driver and the graph registry. */
function agentCardOptions(deps: A2AHandlerDeps, options: A2ARoutesOptions, logger: A2ALogger): AgentCardOptions {
  // Cards are built on every A2A request: a bad `metadata.a2a` field is reported once per assistant version.
  const reported = new Set<string>();
  return {
    pushNotifications: deps.storage.pushConfigs !== undefined,
    config: options.cardConfig,
    authConfigured: options.authConfigured ?? false,
    graphDescription: (graphId) => deps.engine.registry.description(graphId),
    extendedCard: options.extendedCard,
    warn: (fields, message) => {
      const key = `${String(fields.assistant_id)}@${String(fields.assistant_version)} ${message}`;
      if (reported.has(key)) return;
      if (reported.size >= 1000) reported.clear();
      reported.add(key);
      (logger.warn ?? logger.error).call(logger, fields, message);
    },
  };
}

async function findAssistant(deps: A2AHandlerDeps, idOrGraph: string): Promise<Assistant | null> {
  return deps.storage.assistants.get(deps.engine.registry.resolveAssistantId(idOrGraph));
}

function onlyGraph(deps: A2AHandlerDeps): string | undefined {
  const ids = deps.engine.registry.ids();
  return ids.length === 1 ? ids[0] : undefined;
}

/** The agent's URL as this request reached us (keeping the id the client used: a graph name works too). */
function endpoint(c: Context, id: string): string {
  const url = new URL(c.req.url);
  return `${url.origin}/a2a/${encodeURIComponent(id)}`;
}
