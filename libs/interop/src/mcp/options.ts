import type { McpLogger, McpToolCallObserver } from "./call-tool.js";
import type { McpSessionOptions } from "./sessions.js";

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
