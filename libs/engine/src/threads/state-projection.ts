import type { StateSnapshot } from "@langchain/langgraph";
import type { Interrupt } from "@agent-server/core";

/**
 * The wire shapes of thread state, as `@langchain/langgraph-sdk` types them (`ThreadState`,
 * `ThreadTask`, `Checkpoint`), built from LangGraph's `StateSnapshot`. Values are left as the graph
 * produced them; the HTTP layer's wire normalization turns messages into JSON.
 */
export interface StateCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

/**
 * Where a subgraph task keeps its state: the task's namespace, as the official server reports it (the
 * task config's `configurable`), so a checkpoint id or map appears only once LangGraph has one.
 */
export interface TaskCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id?: string;
  checkpoint_map?: Record<string, unknown>;
}

export interface ThreadStateTask {
  id: string;
  name: string;
  error: string | null;
  interrupts: Interrupt[];
  /** Where a subgraph task keeps its own state (when the state itself was not requested). */
  checkpoint: TaskCheckpoint | null;
  /** The subgraph's state, with `subgraphs: true`; its pending interrupts are in its own tasks. */
  state: NestedThreadState | null;
  result: unknown;
  path?: unknown[];
}

export interface ThreadState {
  values: unknown;
  next: string[];
  checkpoint: StateCheckpoint | null;
  metadata: Record<string, unknown> | null;
  created_at: string | null;
  parent_checkpoint: StateCheckpoint | null;
  tasks: ThreadStateTask[];
  /** Every pending interrupt of this state's tasks, in task order. */
  interrupts: Interrupt[];
}

/** A subgraph's state inside a task: the official server's shape, without the root's `interrupts` list. */
export type NestedThreadState = Omit<ThreadState, "interrupts">;

/** What a thread without checkpoints (or without a known graph) reports, as the official server does. */
export function emptyThreadState(): ThreadState {
  return {
    values: {},
    next: [],
    checkpoint: null,
    metadata: null,
    created_at: null,
    parent_checkpoint: null,
    tasks: [],
    interrupts: [],
  };
}

type ConfigLike = { configurable?: Record<string, unknown> } | null | undefined;

/**
 * Checkpoint coordinates of a snapshot's config; null unless it names a saved checkpoint (a thread id
 * and a checkpoint id), which is how the official server tells "no checkpoint yet" apart.
 */
export function toStateCheckpoint(config: ConfigLike): StateCheckpoint | null {
  const configurable = config?.configurable;
  if (typeof configurable?.thread_id !== "string" || typeof configurable.checkpoint_id !== "string") return null;
  return {
    thread_id: configurable.thread_id,
    checkpoint_ns: typeof configurable.checkpoint_ns === "string" ? configurable.checkpoint_ns : "",
    checkpoint_id: configurable.checkpoint_id,
    checkpoint_map: isRecord(configurable.checkpoint_map) ? configurable.checkpoint_map : null,
  };
}

/** A subgraph task's config points at a namespace, not (yet) at one checkpoint: the id may be missing. */
function toTaskCheckpoint(config: ConfigLike): TaskCheckpoint | null {
  const configurable = config?.configurable;
  if (typeof configurable?.thread_id !== "string") return null;
  return {
    thread_id: configurable.thread_id,
    checkpoint_ns: typeof configurable.checkpoint_ns === "string" ? configurable.checkpoint_ns : "",
    ...(typeof configurable.checkpoint_id === "string" ? { checkpoint_id: configurable.checkpoint_id } : {}),
    ...(isRecord(configurable.checkpoint_map) ? { checkpoint_map: configurable.checkpoint_map } : {}),
  };
}

export function toThreadState(snapshot: StateSnapshot): ThreadState {
  const tasks = snapshot.tasks.map((task): ThreadStateTask => {
    const nested = task.state != null && isSnapshot(task.state) ? task.state : undefined;
    return {
      id: task.id,
      name: task.name,
      error: task.error == null ? null : errorMessage(task.error),
      interrupts: (task.interrupts ?? []) as Interrupt[],
      checkpoint: nested ? null : toTaskCheckpoint(task.state as ConfigLike),
      state: nested ? withoutInterrupts(toThreadState(nested)) : null,
      result: task.result ?? null,
      ...(task.path ? { path: [...task.path] } : {}),
    };
  });
  return {
    values: snapshot.values,
    next: [...snapshot.next],
    checkpoint: toStateCheckpoint(snapshot.config),
    metadata: stateMetadata(snapshot.metadata),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: toStateCheckpoint(snapshot.parentConfig),
    tasks,
    interrupts: tasks.flatMap((task) => task.interrupts),
  };
}

function withoutInterrupts(state: ThreadState): NestedThreadState {
  const { interrupts: _interrupts, ...nested } = state;
  return nested;
}

/** Pending interrupts keyed by task id: what the thread row keeps (`Thread.interrupts`). */
export function interruptsByTask(state: ThreadState): Record<string, Interrupt[]> {
  const out: Record<string, Interrupt[]> = {};
  for (const task of state.tasks) if (task.interrupts.length > 0) out[task.id] = task.interrupts;
  return out;
}

/** The root namespace's empty `checkpoint_ns` is noise in metadata; the official server drops it. */
function stateMetadata(metadata: StateSnapshot["metadata"]): Record<string, unknown> | null {
  if (metadata == null) return null;
  const copy: Record<string, unknown> = { ...(metadata as Record<string, unknown>) };
  if (copy.checkpoint_ns === "") delete copy.checkpoint_ns;
  return copy;
}

function isSnapshot(state: object): state is StateSnapshot {
  return "values" in state && "next" in state;
}

function errorMessage(error: unknown): string {
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  return JSON.stringify(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
