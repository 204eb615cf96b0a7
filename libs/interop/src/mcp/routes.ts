import { OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "./caller.js";
import { ToolCalls, type McpLogger, type McpToolCallObserver } from "./call-tool.js";
import { jsonRpcError } from "./http-responses.js";
import { registerMcpPaths } from "./openapi.js";
import { createMcpServer } from "./server.js";
import { McpSessions, type McpSessionOptions } from "./sessions.js";
import { handleStateless } from "./stateless.js";
import { ToolCatalog, type McpDeps } from "./tools.js";

/** What a request body may weigh when the app sets no limit: agent-protocol's default (`http.max_body_size`). */
const DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024;
/** How long a tool call may take by default: longer than most MCP clients wait, short of the run limit's hour. */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

export interface McpRoutesOptions {
  /** langgraph.json `mcp.assistants`: the assistants that are tools (assistant ids or graph names), in order. Default: all. */
  assistants?: readonly string[] | undefined;
  /** langgraph.json `mcp.mode`: `stateless` (default) or `session`. */
  mode?: "stateless" | "session" | undefined;
  /** Session mode: idle expiry and the number of sessions kept. */
  sessions?: McpSessionOptions | undefined;
  /**
   * langgraph.json `mcp.call_timeout`: how long a `tools/call` may take, in ms (0: no limit but the run's
   * own). Past it the call's run is cancelled and the call answers a tool error. Default 300 s.
   */
  callTimeoutMs?: number | undefined;
  /** Where failures that are not the caller's go (with their stack); console.error when unset. */
  logger?: McpLogger | undefined;
  /** Told of every tools/call's end (metrics); nothing is counted without it. */
  observeToolCall?: McpToolCallObserver | undefined;
}

/** The routes, and (session mode) the sessions they keep, for embedders that shut down gracefully. */
export type McpRoutes = OpenAPIHono & { closeSessions(): Promise<void> };

const consoleLogger: McpLogger = { error: (fields, message) => console.error(message, fields) };

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (`@modelcontextprotocol/sdk`'s web-standard
 * transport behind Hono). Every assistant the caller may run is a tool (tools.ts); a call runs it and
 * answers its reply (call-tool.ts). Stateless (stateless.ts) or session mode (sessions.ts).
 *
 * Mounted through agent-protocol's `extraRoutes`, behind its body limit and auth middleware: the caller
 * (`c.var.auth`, read structurally) travels with each request into the SDK server (caller.ts). The app is
 * an OpenAPIHono so /mcp is listed in /openapi.json under `MCP` (openapi.ts).
 */
export function mcpRoutes(deps: McpDeps, options: McpRoutesOptions = {}): McpRoutes {
  const app = new OpenAPIHono();
  registerMcpPaths(app.openAPIRegistry);
  const catalog = new ToolCatalog(deps, options.assistants);
  const calls = new ToolCalls(
    deps,
    catalog,
    options.logger ?? consoleLogger,
    options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    options.observeToolCall,
  );
  const newServer = () => createMcpServer(deps, catalog, calls);
  const maxRequestBodySize = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sessions = options.mode === "session" ? new McpSessions(newServer, maxRequestBodySize, options.sessions) : undefined;

  app.all("/mcp", (c) => {
    if (!["GET", "POST", "DELETE"].includes(c.req.method)) {
      return jsonRpcError(405, -32000, "Method not allowed.", { Allow: sessions ? "GET, POST, DELETE" : "POST" });
    }
    const caller = callerOf((c.var as Record<string, unknown>).auth, c.req.raw.signal);
    return sessions ? sessions.handle(c.req.raw, caller) : handleStateless(c.req.raw, caller, newServer, maxRequestBodySize);
  });
  return Object.assign(app, { closeSessions: async () => sessions?.closeAll() });
}
