import type { BaseStore } from "@langchain/langgraph-checkpoint";

/** The user an access is made for, as the auth layer established it (`langgraph_auth_user` in a run's config). */
export interface GraphUser {
  identity: string;
  [key: string]: unknown;
}

/**
 * What the server loads a graph for, as the official servers tell a graph factory:
 * - `threads.create_run`: to execute a run (every attempt), with the run's `context`;
 * - `threads.read`: to read a thread's state or history;
 * - `threads.update`: to write a thread's state (`updateState`, supersteps);
 * - `assistants.read`: to describe the graph (drawing, schemas, subgraphs, MCP tools), the default.
 */
export type GraphAccess =
  | { accessContext: "threads.create_run"; context?: unknown; user?: GraphUser }
  | { accessContext: "assistants.read" | "threads.read" | "threads.update"; user?: GraphUser };

/**
 * The second argument a graph factory `(config, runtime) => graph` receives: `@langchain/langgraph-sdk`'s
 * `ServerRuntime` (`accessContext`, and `executionRuntime.context` for a run, null otherwise), as
 * langgraph-api passes it, plus what the Python server's `ServerRuntime` also carries: the `user` (when
 * the server knows who asks: runs) and the `store` the graph is given. A factory that takes only its
 * config is called as before.
 */
export type ServerRuntime<Context = unknown> = (
  | { accessContext: "threads.create_run"; executionRuntime: { context: Context | undefined } }
  | { accessContext: "assistants.read" | "threads.read" | "threads.update"; executionRuntime: null }
) & { user?: GraphUser; store?: BaseStore };

/** The runtime for `access`; a fresh object per call, so one factory call cannot change what the next sees. */
export function serverRuntime(access: GraphAccess, store: BaseStore | undefined): ServerRuntime {
  const shared = { ...(access.user ? { user: access.user } : {}), ...(store ? { store } : {}) };
  return access.accessContext === "threads.create_run"
    ? { accessContext: access.accessContext, executionRuntime: { context: access.context }, ...shared }
    : { accessContext: access.accessContext, executionRuntime: null, ...shared };
}

/** Describing the graph is what a load is for when its caller does not say. */
export const DESCRIBE_GRAPH: GraphAccess = { accessContext: "assistants.read" };
