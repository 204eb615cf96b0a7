export { mcpRoutes, type McpRoutes, type McpRoutesOptions } from "./routes.js";
export type { McpDeps } from "./tools.js";
export type { McpLogger, McpToolCallObserver } from "./call-tool.js";
export type { McpSessionOptions } from "./sessions.js";
export { MCP_DOCUMENTED_ROUTES } from "./openapi.js";
export { THREAD_ID_META, RUN_ID_META, RESUME_META } from "./tool-result.js";
export { sanitizeToolName, assignToolNames, MAX_TOOL_NAME_LENGTH } from "./tool-names.js";
