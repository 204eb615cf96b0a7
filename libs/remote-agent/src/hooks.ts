/** A remote task's state in the A2A specification's words (`TASK_STATE_INPUT_REQUIRED` is `input-required`). */
export type RemoteTaskState =
  "submitted" | "working" | "input-required" | "auth-required" | "completed" | "failed" | "canceled" | "rejected" | "unknown";

/** One node execution's remote call as the server sees it: which agent, which task, where it stands. */
export interface RemoteCallInfo {
  /** The agent's name (its card's, or the options'). */
  agent: string;
  url: string;
  taskId?: string;
  contextId?: string;
  state: RemoteTaskState;
  /** The local run and thread, when the call runs inside one of this server's runs. */
  runId?: string;
  threadId?: string;
  /** The node (or tool) that made the call. */
  node?: string;
}

/** How a call ended: the remote task's terminal or interrupted state, or `error` / `aborted` locally. */
export type RemoteCallOutcome = "completed" | "failed" | "canceled" | "rejected" | "input-required" | "auth-required" | "error" | "aborted";

/**
 * What the server hosting the graph wants to know of its remote calls (metrics), and its own app as a
 * fetch (agents named by a path are its own: they are called in process, through the app's auth). Graph
 * modules may have module instances of their own (a project with its own LangGraph copy, a second
 * server in one process: loaded in a tsx scope of their own), so the hooks live on `globalThis`, not in a
 * module variable.
 */
export interface RemoteAgentHooks {
  /** This server's app: `/a2a/echo` is sent through it. */
  selfFetch?: () => typeof fetch | undefined;
  callUpdated?(info: RemoteCallInfo): void;
  callEnded?(info: RemoteCallInfo, outcome: RemoteCallOutcome, seconds: number): void;
}

const HOOKS = Symbol.for("agent-server.remote-agent.hooks");

function installed(): Set<RemoteAgentHooks> {
  const holder = globalThis as Record<symbol, unknown>;
  return (holder[HOOKS] ??= new Set<RemoteAgentHooks>()) as Set<RemoteAgentHooks>;
}

/** Registers `hooks` for every remote call in this process; the returned function removes them. */
export function installRemoteAgentHooks(hooks: RemoteAgentHooks): () => void {
  installed().add(hooks);
  return () => installed().delete(hooks);
}

/** The app of the server this process runs, as a fetch (the last one started that offers it). */
export function selfFetch(): typeof fetch | undefined {
  let found: typeof fetch | undefined;
  for (const hooks of installed()) found = hooks.selfFetch?.() ?? found;
  return found;
}

export function reportUpdated(info: RemoteCallInfo): void {
  for (const hooks of installed()) hooks.callUpdated?.(info);
}

export function reportEnded(info: RemoteCallInfo, outcome: RemoteCallOutcome, seconds: number): void {
  for (const hooks of installed()) hooks.callEnded?.(info, outcome, seconds);
}
