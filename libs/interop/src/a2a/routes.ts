import type { AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Assistant } from "@agent-server/core";
import { agentCardFor, agentCardJson } from "./agent-card.js";
import { agentCardOptions, type A2ACardSettings } from "./card/app-options.js";
import { agentCardResponse, CardRevisions } from "./card/card-caching.js";
import type { AgentCardOptions } from "./card/options.js";
import { defaultAssistantOf, findAssistant } from "./assistants.js";
import { observedHandler, type A2ABinding, type A2ACallObserver } from "./observe-calls.js";
import { registerA2APaths } from "./openapi.js";
import { registerPushDelivery } from "./push/push-delivery.js";
import { consoleA2ALogger, type A2ALogger } from "./request-errors.js";
import type { A2AHandlerDeps } from "./handler-deps.js";
import { TaskRequestHandler } from "./request-handler.js";
import { requestScope, type A2ARequestScope, type StructuralRequestAuth } from "./request-scope.js";
import { handleHttpJson, httpJsonStorageFault } from "./transports/http-json.js";
import { grpcInterfaceUrl, type A2AGrpcAddress } from "./transports/grpc-options.js";
import { handleJsonRpc, jsonRpcStorageFault } from "./transports/json-rpc.js";

export interface A2ARoutesOptions extends A2ACardSettings {
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
  /**
   * Where the A2A gRPC server (startA2AGrpcServer) is bound, when it runs: every card then also lists a
   * `GRPC` interface at that port, with the assistant as its tenant. A function, because the server
   * starts after the HTTP server (cards are built per request, so it may answer undefined until then).
   */
  grpc?: A2AGrpcAddress | (() => A2AGrpcAddress | undefined) | undefined;
  /** Told of every call's end (metrics); nothing is counted without it. */
  observeCall?: A2ACallObserver | undefined;
}

/**
 * A2A routes, one agent per assistant (a graph name works wherever an assistant id does):
 * - GET  /a2a/{assistant_id}/.well-known/agent-card.json — the card. Clients resolve the card path
 *   relative to the base URL, so they use `createFromUrl("http://host/a2a/<id>/")` (trailing slash).
 * - GET  /.well-known/agent-card.json?assistant_id=<id> — the same card (LangGraph's path); without
 *   `assistant_id` the default assistant's card, or 404 when there is none.
 * - POST /a2a/{assistant_id} — JSON-RPC: v1.0 (`A2A-Version: 1.0`) and legacy v0.3 (no header); also
 *   at `/a2a/{assistant_id}/` (a client joining a base URL that ends in "/", such as Python httpx with
 *   `base_url`, posts there; HTTP+JSON has no route at "/").
 * - /a2a/{assistant_id}/message:send, /tasks/{id}, ... — HTTP+JSON v1.0.
 *
 * Both card routes answer with HTTP caching headers and 304 on a matching conditional GET
 * (card/card-caching.ts).
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
  const revisions = new CardRevisions();
  /** The card of `assistant` (named `id` by the client) as served, with its caching headers. */
  const cardAnswer = (c: Context, assistant: Assistant, id: string): Response => {
    const card = cardFor(assistant, c, id, cardOptions, options);
    const grpcListed = card.supportedInterfaces.some((i) => i.protocolBinding === "GRPC");
    return agentCardResponse(c, agentCardJson(card), revisions.lastModified(assistant, grpcListed));
  };

  app.get("/.well-known/agent-card.json", async (c) => {
    const requested = c.req.query("assistant_id") || defaultAssistantOf(deps, options.defaultAssistant);
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
    return cardAnswer(c, assistant, requested);
  });

  app.get("/a2a/:assistant_id/.well-known/agent-card.json", async (c) => {
    const id = c.req.param("assistant_id");
    const assistant = await findAssistant(deps, id);
    if (!assistant) return c.json({ detail: `Assistant "${id}" not found` }, 404);
    return cardAnswer(c, assistant, id);
  });

  const jsonRpc = async (c: Context): Promise<Response> => {
    // A storage fault reading the agent is answered in the binding's own error shape, as the handler's are.
    const resolved = await resolve(deps, c, cardOptions, options, "jsonrpc").catch(
      async (error: unknown) => (await jsonRpcStorageFault(c, error, logger)) ?? Promise.reject(error),
    );
    if (resolved instanceof Response) return resolved;
    return handleJsonRpc(c, resolved.handler, resolved.card, resolved.scope, logger);
  };
  app.post("/a2a/:assistant_id", jsonRpc);
  // Before the HTTP+JSON routes below, which would otherwise take it (and answer "no route for POST /").
  app.post("/a2a/:assistant_id/", jsonRpc);

  app.on(["GET", "POST", "DELETE"], "/a2a/:assistant_id/*", async (c) => {
    const id = c.req.param("assistant_id");
    const prefix = `/a2a/${encodeURIComponent(id)}`;
    const path = c.req.path;
    const subpath = path.startsWith(prefix) ? path.slice(prefix.length) : path.slice(path.indexOf("/", "/a2a/".length));
    const resolved = await resolve(deps, c, cardOptions, options, "http+json").catch(
      (error: unknown) =>
        httpJsonStorageFault(error, logger, { binding: "HTTP+JSON", path }, c.req.header("accept") ?? null) ?? Promise.reject(error),
    );
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
  options: A2ARoutesOptions,
  binding: A2ABinding,
): Promise<Response | { handler: A2ARequestHandler; card: AgentCard; scope: A2ARequestScope }> {
  const id = c.req.param("assistant_id") ?? "";
  const assistant = await findAssistant(deps, id);
  if (!assistant) return c.json({ detail: `Assistant "${id}" not found` }, 404);
  const card = cardFor(assistant, c, id, cardOptions, options);
  const scope = requestScope((c.var as Record<string, unknown>).auth as StructuralRequestAuth | undefined);
  // The scope also travels in every call's ServerCallContext.state (requestScopeOf(context)).
  const handler = observedHandler(new TaskRequestHandler(deps, assistant, card, scope.auth, cardOptions), binding, options.observeCall);
  return { handler, card, scope };
}

/** The card of `assistant` as the client named it (`id`: assistant id or graph name) in this request. */
function cardFor(assistant: Assistant, c: Context, id: string, cardOptions: AgentCardOptions, options: A2ARoutesOptions): AgentCard {
  const grpc = typeof options.grpc === "function" ? options.grpc() : options.grpc;
  return agentCardFor(assistant, endpoint(c, id), { ...cardOptions, grpc: grpc ? { url: grpcUrl(grpc, c), tenant: id } : undefined });
}

/** The agent's URL as this request reached us (keeping the id the client used: a graph name works too). */
function endpoint(c: Context, id: string): string {
  const url = new URL(c.req.url);
  return `${url.origin}/a2a/${encodeURIComponent(id)}`;
}

/**
 * The URL of the gRPC interface clients should dial (`dns:///host:port`, see `grpcInterfaceUrl`): the host
 * the server was bound to, unless that is every interface (0.0.0.0, ::), which no client can dial: then
 * the host this card was fetched from, which the client demonstrably reaches.
 */
function grpcUrl(bound: A2AGrpcAddress, c: Context): string {
  const unspecified = bound.host === "" || bound.host === "0.0.0.0" || bound.host === "::" || bound.host === "[::]";
  // URL.hostname keeps IPv6 brackets ("[::1]"), as a gRPC target needs them.
  return grpcInterfaceUrl(unspecified ? new URL(c.req.url).hostname : bound.host, bound.port);
}
