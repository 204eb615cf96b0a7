export { a2aRoutes } from "./a2a/routes.js";
export { agentCardFor, A2A_PROTOCOL_VERSION } from "./a2a/agent-card.js";
export { TaskRequestHandler, type A2AHandlerDeps } from "./a2a/request-handler.js";
export { projectTask, taskState, type TaskSource } from "./a2a/task-projection.js";
