import { OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "./caller.js";
import type { McpHandler } from "./handler.js";
import { jsonRpcError } from "./http-responses.js";
import { registerMcpPaths } from "./openapi.js";
import type { McpRoutesOptions } from "./options.js";
import type { McpDeps } from "./tools.js";

export type { McpRoutesOptions } from "./options.js";

/** What a request body may weigh when the app sets no limit: agent-protocol's default (`http.max_body_size`). */
const DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** The routes, and (session mode) the sessions they keep, for embedders that shut down gracefully. */
export type McpRoutes = OpenAPIHono & { closeSessions(): Promise<void> };

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (`@modelcontextprotocol/sdk`'s web-standard
 * transport behind Hono). Every assistant the caller may run is a tool (tools.ts); a call runs it and
 * answers its reply (call-tool.ts). Stateless (stateless.ts) or session mode (sessions.ts).
 *
 * Mounted through agent-protocol's `extraRoutes`, behind its body limit and auth middleware: the caller
 * (`c.var.auth`, read structurally) travels with each request into the SDK server (caller.ts). The app is
 * an OpenAPIHono so /mcp is listed in /openapi.json under `MCP` (openapi.ts).
 *
 * The SDK and everything over it (handler.ts) load on the first request to /mcp, not with the routes:
 * a start that loaded them would answer later, and many servers are never called over MCP.
 */
export function mcpRoutes(deps: McpDeps, options: McpRoutesOptions = {}): McpRoutes {
  const app = new OpenAPIHono();
  registerMcpPaths(app.openAPIRegistry);
  const maxRequestBodySize = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const session = options.mode === "session";
  let handler: Promise<McpHandler> | undefined;
  const loaded = () => (handler ??= import("./handler.js").then((m) => m.mcpHandler(deps, options, maxRequestBodySize)));

  app.all("/mcp", async (c) => {
    if (!["GET", "POST", "DELETE"].includes(c.req.method)) {
      return jsonRpcError(405, -32000, "Method not allowed.", { Allow: session ? "GET, POST, DELETE" : "POST" });
    }
    const caller = callerOf((c.var as Record<string, unknown>).auth, c.req.raw.signal);
    return (await loaded()).handle(c.req.raw, caller);
  });
  // Never loaded: no session to close, and nothing to load for it.
  return Object.assign(app, { closeSessions: async () => (handler ? (await handler).closeAll() : undefined) });
}
