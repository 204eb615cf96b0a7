import { matchesAuthFilter, type AuthFilter, type Thread } from "@agent-server/core";
import type { NestedThreadState, ThreadState } from "@agent-server/engine";
import { stateServiceOf as stateService } from "../threads/access.js";
import type { AppDeps } from "../app-env.js";
import type { RequestAuth } from "../auth/request-auth.js";
import { ProtocolError } from "./envelopes.js";
import { ListCheckpointsParams, parseParams, StateGetParams } from "./params.js";

/** Who sends a command, over which app: what every command handler needs, whatever the transport. */
export interface CommandCaller {
  deps: AppDeps;
  auth: RequestAuth;
  /** The request's headers (`x-*` headers reach the graph's config, as on REST runs). */
  headers: Headers;
}

/**
 * `threads:read` on one thread: the handler's filter, and the thread when it exists (`hidden` when it
 * exists outside the filter, which callers answer as if it did not exist). The one read check of the
 * protocol's commands, streams and sockets.
 */
export async function readAccess(
  caller: Pick<CommandCaller, "deps" | "auth">,
  threadId: string,
): Promise<{ filter: AuthFilter | undefined; thread: Thread | undefined; hidden: boolean }> {
  const filter = await caller.auth.authorize("threads", "read", { thread_id: threadId });
  const thread = (await caller.deps.storage.threads.get(threadId)) ?? undefined;
  return { filter, thread, hidden: thread !== undefined && !matchesAuthFilter(thread.metadata, filter) };
}

/** A thread the caller may read; one that does not exist or that the filter hides reads as missing. */
export async function readableThread(caller: CommandCaller, threadId: string): Promise<Thread> {
  const { thread, hidden } = await readAccess(caller, threadId);
  if (!thread || hidden) throw threadNotFound(threadId);
  return thread;
}

/** A thread the caller may read, or one that does not exist yet (its first run creates it). */
export async function readableOrUnborn(caller: CommandCaller, threadId: string): Promise<void> {
  if ((await readAccess(caller, threadId)).hidden) throw threadNotFound(threadId);
}

export function threadNotFound(threadId: string): ProtocolError {
  return new ProtocolError("invalid_argument", `Thread "${threadId}" not found`);
}

/** Ids of the interrupts the thread waits on now, subgraphs' included. */
export async function pendingInterruptIds(caller: CommandCaller, thread: Thread): Promise<string[]> {
  const state = await stateService(caller.deps).getState(thread.thread_id, { subgraphs: true });
  const ids: string[] = [];
  const collect = (tasks: ThreadState["tasks"]) => {
    for (const task of tasks) {
      for (const interrupt of task.interrupts ?? []) if (typeof interrupt.id === "string") ids.push(interrupt.id);
      if (isNestedState(task.state)) collect(task.state.tasks);
    }
  };
  collect(state.tasks);
  return [...new Set(ids)];
}

/**
 * `state.get`: the values (all, or `keys`) and checkpoint of the thread's root graph, or of the subgraph
 * at `namespace` while it has state (a segment is `node:task_id`, or the node name alone).
 */
export async function stateGet(caller: CommandCaller, threadId: string, raw: unknown): Promise<Record<string, unknown>> {
  const params = parseParams("state.get", StateGetParams, raw);
  await readableThread(caller, threadId);
  const namespace = params.namespace ?? [];
  let state: ThreadState | NestedThreadState = await stateService(caller.deps).getState(threadId, { subgraphs: namespace.length > 0 });
  for (const segment of namespace) {
    const task = state.tasks.find((t) => `${t.name}:${t.id}` === segment || t.name === segment.split(":")[0]);
    if (!task || !isNestedState(task.state)) {
      throw new ProtocolError("no_such_namespace", `No subgraph state at namespace ${JSON.stringify(namespace)}`);
    }
    state = task.state;
  }
  const values = (state.values ?? {}) as Record<string, unknown>;
  const keys = params.keys;
  const checkpoint = state.checkpoint?.checkpoint_id
    ? { id: state.checkpoint.checkpoint_id, ...(state.checkpoint.checkpoint_ns ? { ns: state.checkpoint.checkpoint_ns } : {}) }
    : undefined;
  return {
    values: keys ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key))) : values,
    ...(checkpoint ? { checkpoint } : {}),
  };
}

/** `state.listCheckpoints`: the thread's checkpoints, newest first (`limit`, default 10; `before` a checkpoint id). */
export async function listCheckpoints(caller: CommandCaller, threadId: string, raw: unknown): Promise<Record<string, unknown>> {
  const params = parseParams("state.listCheckpoints", ListCheckpointsParams, raw);
  await readableThread(caller, threadId);
  const ns = params.namespace?.join("|") ?? "";
  const history = await stateService(caller.deps).history(threadId, {
    limit: params.limit ?? 10,
    ...(params.before ? { before: params.before } : {}),
    ...(ns ? { checkpoint: { checkpoint_ns: ns } } : {}),
  });
  const checkpoints = history.flatMap((state) => {
    const id = state.checkpoint?.checkpoint_id;
    if (!id) return [];
    const metadata = state.metadata ?? {};
    const writes = metadata.writes;
    const nodes = writes && typeof writes === "object" ? Object.keys(writes) : [];
    return [
      {
        id,
        timestamp: state.created_at ?? "",
        step: typeof metadata.step === "number" ? metadata.step : 0,
        ...(nodes.length === 1 ? { node_name: nodes[0] } : {}),
        metadata,
      },
    ];
  });
  return { checkpoints };
}

function isNestedState(value: unknown): value is NestedThreadState {
  return value !== null && typeof value === "object" && Array.isArray((value as NestedThreadState).tasks);
}
