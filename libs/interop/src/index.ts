export { a2aRoutes, type A2ARoutesOptions } from "./a2a/routes.js";
export type { A2ABinding, A2ACallObserver } from "./a2a/observe-calls.js";
export type { A2ACardSettings } from "./a2a/card/app-options.js";
export { A2A_V1_METHODS, A2A_V03_METHODS } from "./a2a/methods.js";
export type { A2ALogger } from "./a2a/request-errors.js";
export { agentCardFor, agentCardJson, A2A_PROTOCOL_VERSION, A2A_LEGACY_PROTOCOL_VERSION } from "./a2a/agent-card.js";
export type { A2ACardConfig, AgentCardOptions, ExtendedCardContext, ExtendedCardHook } from "./a2a/card/options.js";
export { extendedCardFromJson } from "./a2a/card/extended.js";
export { TaskRequestHandler } from "./a2a/request-handler.js";
export type { A2AHandlerDeps } from "./a2a/handler-deps.js";
export { projectTask, taskState, type TaskSource } from "./a2a/task-projection.js";
export {
  requestScope,
  requestScopeOf,
  authorizeThread,
  openScope,
  A2A_REQUEST_SCOPE_KEY,
  type A2ARequestScope,
  type A2AThreadAction,
  type A2AThreadRef,
  type StructuralRequestAuth,
} from "./a2a/request-scope.js";
export { startA2AGrpcServer } from "./a2a/transports/grpc.js";
export { grpcTarget, type A2AGrpcAddress, type A2AGrpcServerOptions, type RunningA2AGrpcServer } from "./a2a/transports/grpc-options.js";
export {
  mcpRoutes,
  type McpRoutes,
  type McpRoutesOptions,
  type McpDeps,
  type McpLogger,
  type McpToolCallObserver,
  type McpSessionOptions,
  MCP_DOCUMENTED_ROUTES,
  THREAD_ID_META,
  RUN_ID_META,
  RESUME_META,
} from "./mcp/index.js";
