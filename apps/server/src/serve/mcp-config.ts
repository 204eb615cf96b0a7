import type { AppDeps } from "@agent-server/agent-protocol";
import type { Storage } from "@agent-server/core";
import type { Engine, LangGraphConfig } from "@agent-server/engine";
import { mcpRoutes, type McpRoutes, type McpToolCallObserver } from "@agent-server/interop";
import type { Logger } from "../observability/index.js";

/** The /mcp routes as langgraph.json asks for them, and the routes once the app has built them (for shutdown). */
export interface McpMount {
  /** For `extraRoutes`; absent when `http.disable_mcp` turns the endpoint off. */
  route?: (deps: AppDeps) => McpRoutes;
  built(): McpRoutes | undefined;
}

/**
 * `/mcp` unless `http.disable_mcp` (then it is absent: 404 like any unknown route), with the tools of
 * `mcp.assistants` and the mode of `mcp.mode`.
 */
export function mcpMount(config: LangGraphConfig, logger: Logger, observeToolCall?: McpToolCallObserver): McpMount {
  if (config.http?.disable_mcp === true) {
    if (config.mcp !== undefined) logger.warn({}, "langgraph.json: mcp has no effect with http.disable_mcp: the /mcp endpoint is off");
    return { built: () => undefined };
  }
  let routes: McpRoutes | undefined;
  return {
    route: (deps) =>
      (routes = mcpRoutes(deps, {
        assistants: config.mcp?.assistants,
        mode: config.mcp?.mode,
        ...(config.mcp?.call_timeout !== undefined ? { callTimeoutMs: config.mcp.call_timeout * 1000 } : {}),
        logger: logger.child({ source: "mcp" }),
        observeToolCall,
      })),
    built: () => routes,
  };
}

/**
 * Says at start where /mcp is, and which `mcp.assistants` entries name nothing the server knows (neither
 * a graph nor an assistant that exists now): likely typos. Assistants created later still become tools.
 */
export async function announceMcp(config: LangGraphConfig, url: string, engine: Engine, storage: Storage, logger: Logger): Promise<void> {
  if (config.http?.disable_mcp === true) {
    logger.info({ mcp: false }, "MCP endpoint off (http.disable_mcp)");
    return;
  }
  const mode = config.mcp?.mode ?? "stateless";
  logger.info({ mcp: `${url}/mcp`, mode }, `MCP endpoint: ${url}/mcp (${mode} mode)`);
  const unknown: string[] = [];
  for (const ref of config.mcp?.assistants ?? []) {
    if (!engine.registry.has(ref) && !(await storage.assistants.get(ref))) unknown.push(ref);
  }
  if (unknown.length > 0) {
    logger.warn(
      { unknown },
      `langgraph.json: mcp.assistants names ${unknown.map((ref) => `"${ref}"`).join(", ")}: no such graph or assistant (yet): no tool for it`,
    );
  }
}
