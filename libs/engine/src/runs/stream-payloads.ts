import { toStateCheckpoint, type StateCheckpoint } from "../threads/state-projection.js";

/**
 * The `debug`, `checkpoints` and `tasks` stream payloads as the official server emits them. LangGraph
 * describes checkpoints by their RunnableConfig (`config`, `parentConfig`) and subgraph tasks by the
 * config of their namespace (`state`); clients (the SDK, LangGraph Studio) read checkpoint coordinates
 * instead, the same `{thread_id, checkpoint_ns, checkpoint_id, checkpoint_map}` that thread state and
 * history report, so a streamed checkpoint can be matched against `GET /threads/{id}/history`.
 */

type Fields = Record<string, unknown>;

/** A task in a debug checkpoint, a `tasks` event or a `task_result` debug event. */
export type StreamTask = Fields & { state?: unknown };

/** LangGraph's checkpoint payload (`checkpoints` mode, `debug` events of type `checkpoint`). */
export interface LangGraphCheckpointPayload extends Fields {
  config?: unknown;
  parentConfig?: unknown;
  tasks?: StreamTask[];
}

/**
 * A checkpoint payload with `checkpoint` / `parent_checkpoint` coordinates, `parent_config` for
 * `parentConfig`, configs without callbacks or LangGraph-internal (`__`-prefixed) keys, and subgraph
 * tasks pointing at their namespace with `checkpoint` instead of a config in `state`.
 */
export function streamCheckpoint(payload: LangGraphCheckpointPayload): Fields {
  const { parentConfig, ...rest } = payload;
  return {
    ...rest,
    config: publicConfig(payload.config),
    parent_config: publicConfig(parentConfig),
    checkpoint: toStateCheckpoint(asConfig(payload.config)),
    parent_checkpoint: toStateCheckpoint(asConfig(parentConfig)),
    tasks: (payload.tasks ?? []).map(streamTask),
  };
}

/** A task whose `state` is its subgraph's config gets `checkpoint` (its namespace) instead. */
export function streamTask(task: StreamTask): StreamTask {
  const checkpoint = taskCheckpoint(task.state);
  if (!checkpoint) return task;
  const { state: _config, ...rest } = task;
  return { ...rest, checkpoint };
}

/**
 * A `debug` chunk: checkpoints and task results get the shapes above; `task` events (a task about to
 * run) go out as LangGraph made them.
 */
export function streamDebugChunk(chunk: unknown): unknown {
  if (!isRecord(chunk) || !isRecord(chunk.payload)) return chunk;
  if (chunk.type === "checkpoint") return { ...chunk, payload: streamCheckpoint(chunk.payload as LangGraphCheckpointPayload) };
  if (chunk.type === "task_result") return { ...chunk, payload: streamTask(chunk.payload as StreamTask) };
  return chunk;
}

/**
 * A `tools` chunk (LangGraph's tool-call lifecycle events). A failed tool's error is an Error, which JSON
 * would turn into `{}`: it goes out as `{error, message}`, the shape of the stream's own `error` events.
 */
export function streamToolChunk(chunk: unknown): unknown {
  if (!isRecord(chunk) || !(chunk.error instanceof Error)) return chunk;
  return { ...chunk, error: { error: chunk.error.name, message: chunk.error.message } };
}

/**
 * LangGraph's lightweight checkpoint envelope (`{id, parent_id?, step, source}`), which it emits in the
 * `checkpoints` mode beside `values` chunks when subgraphs are streamed — not a full checkpoint payload.
 */
export function isCheckpointEnvelope(chunk: unknown): boolean {
  return (
    isRecord(chunk) &&
    typeof chunk.id === "string" &&
    ("source" in chunk || typeof chunk.step === "number") &&
    !("values" in chunk) &&
    !("config" in chunk)
  );
}

/** A subgraph task's namespace: ids may be missing (null) before the subgraph first checkpoints. */
function taskCheckpoint(state: unknown): StateCheckpoint | null {
  if (!isRecord(state) || !isRecord(state.configurable)) return null;
  const configurable = state.configurable;
  if (typeof configurable.thread_id !== "string") return null;
  return {
    thread_id: configurable.thread_id,
    checkpoint_ns: typeof configurable.checkpoint_ns === "string" ? configurable.checkpoint_ns : "",
    checkpoint_id: typeof configurable.checkpoint_id === "string" && configurable.checkpoint_id ? configurable.checkpoint_id : null,
    checkpoint_map: isRecord(configurable.checkpoint_map) ? configurable.checkpoint_map : null,
  };
}

/** A RunnableConfig as a client may see it: no callbacks, no `__pregel_*`-style internal configurable keys. */
function publicConfig(config: unknown): unknown {
  if (!isRecord(config)) return config;
  const { callbacks: _callbacks, ...rest } = config;
  if (!isRecord(rest.configurable)) return rest;
  return { ...rest, configurable: Object.fromEntries(Object.entries(rest.configurable).filter(([key]) => !key.startsWith("__"))) };
}

function asConfig(config: unknown): { configurable?: Fields } | undefined {
  return isRecord(config) ? (config as { configurable?: Fields }) : undefined;
}

function isRecord(value: unknown): value is Fields {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
