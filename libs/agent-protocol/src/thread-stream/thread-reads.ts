import { matchesAuthFilter, type Thread } from "@agent-server/core";
import { ThreadStateService, type NestedThreadState, type ThreadState } from "@agent-server/engine";
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

const services = new WeakMap<AppDeps, ThreadStateService>();

function stateService(deps: AppDeps): ThreadStateService {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = new ThreadStateService(deps.storage, deps.engine.registry)));
  return service;
}

/** `threads:read` on one thread: a thread that does not exist or that the filter hides reads as missing. */
export async function readableThread(caller: CommandCaller, threadId: string): Promise<Thread> {
  const filter = await caller.auth.authorize("threads", "read", { thread_id: threadId });
  const thread = await caller.deps.storage.threads.get(threadId);
  if (!thread || !matchesAuthFilter(thread.metadata, filter)) throw new ProtocolError("invalid_argument", `Thread "${threadId}" not found`);
  return thread;
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
