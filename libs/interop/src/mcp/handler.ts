import type { McpCaller } from "./caller.js";
import { ToolCalls, type McpLogger } from "./call-tool.js";
import type { McpRoutesOptions } from "./options.js";
import { createMcpServer } from "./server.js";
import { McpSessions } from "./sessions.js";
import { handleStateless } from "./stateless.js";
import { ToolCatalog, type McpDeps } from "./tools.js";

/** How long a tool call may take by default: longer than most MCP clients wait, short of the run limit's hour. */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

const consoleLogger: McpLogger = { error: (fields, message) => console.error(message, fields) };

/** What answers `/mcp` once the SDK is loaded: one request at a time, and the sessions it keeps. */
export interface McpHandler {
  handle(request: Request, caller: McpCaller): Promise<Response>;
  closeAll(): Promise<void>;
}

/**
 * The tool catalog, calls and the SDK's servers and transports behind `/mcp`: every module of the MCP
 * room that loads `@modelcontextprotocol/sdk` (its server, transport and Ajv) is reached from here only.
 * routes.ts imports this on the first request, so a start does not load the SDK (~75 ms on an idle
 * machine, on top of what it loads anyway) and a server nobody calls over MCP never does.
 */
export function mcpHandler(deps: McpDeps, options: McpRoutesOptions, maxRequestBodySize: number): McpHandler {
  const catalog = new ToolCatalog(deps, options.assistants);
  const calls = new ToolCalls(
    deps,
    catalog,
    options.logger ?? consoleLogger,
    options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    options.observeToolCall,
  );
  const newServer = () => createMcpServer(deps, catalog, calls);
  if (options.mode === "session") {
    const sessions = new McpSessions(newServer, maxRequestBodySize, options.sessions);
    return { handle: (request, caller) => sessions.handle(request, caller), closeAll: () => sessions.closeAll() };
  }
  return {
    handle: (request, caller) => handleStateless(request, caller, newServer, maxRequestBodySize),
    closeAll: async () => undefined,
  };
}
