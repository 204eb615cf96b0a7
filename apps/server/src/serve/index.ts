/**
 * `dev` and `serve`: the project read, the server started (storage, engine, the HTTP API and the A2A and
 * MCP bindings, the project's own routes and card), stopped on a signal, and `dev`'s reload supervisor.
 */
export { projectDirOf, readProject, startServer, withTracingShutdown, type StartedServer } from "./start-server.js";
export { handleSignals } from "./signals.js";
export { followSupervisor, superviseWithReload, SUPERVISED_ENV, watchTargets, type ChildMessage } from "./reload.js";
