import type { StateSnapshot } from "@langchain/langgraph";
import {
  ACTIVE_RUN_STATUSES,
  ConflictError,
  InvalidInputError,
  NotFoundError,
  type Checkpoint,
  type Metadata,
  type Storage,
  type Thread,
} from "@agent-server/core";
import type { GraphRegistry } from "../graphs/registry.js";
import type { GraphAccess } from "../graphs/server-runtime.js";
import type { CompiledGraph } from "../graphs/types.js";
import {
  emptyThreadState,
  interruptsByTask,
  toStateCheckpoint,
  toThreadState,
  type StateCheckpoint,
  type ThreadState,
} from "./state-projection.js";
import { resolveThreadGraph, type ThreadGraph } from "./thread-graph.js";
import { applyingUpdate, toLangGraphSupersteps, type Superstep } from "./state-updates.js";

/** Which checkpoint to read or write from: the latest of the root namespace when omitted. */
export interface CheckpointSelector {
  checkpoint_id?: string | null;
  checkpoint_ns?: string | null;
  checkpoint_map?: Record<string, unknown> | null;
}

export interface HistoryQuery {
  limit?: number;
  /** Only checkpoints older than this checkpoint id. */
  before?: string;
  /** Checkpoint metadata must have these key/values. */
  metadata?: Metadata;
  checkpoint?: CheckpointSelector;
}

export interface StateUpdateRequest {
  values?: unknown;
  asNode?: string;
  checkpoint?: CheckpointSelector;
}

export const THREAD_BUSY_MESSAGE = "Thread is busy";

const READ: GraphAccess = { accessContext: "threads.read" };
const UPDATE: GraphAccess = { accessContext: "threads.update" };

/**
 * Thread state as LangGraph keeps it in the driver's checkpointer, read and written through the thread's
 * graph: the current state, a past checkpoint, history, updates (`updateState` / supersteps), and the
 * coordinates of the current checkpoint. No HTTP and no auth here: callers authorize first.
 *
 * After a write, the thread row's `values`, `interrupts` and `status` are brought in line with the new
 * state, since `GET /threads/{id}` reports the row.
 */
export class ThreadStateService {
  constructor(
    private readonly storage: Storage,
    private readonly registry: GraphRegistry,
  ) {}

  /** The thread's state at a checkpoint (the latest when none is named); the empty state before any. */
  async getState(threadId: string, options: { checkpoint?: CheckpointSelector; subgraphs?: boolean } = {}): Promise<ThreadState> {
    const thread = await this.thread(threadId);
    const target = this.config(threadId, options.checkpoint);
    if (target.configurable.checkpoint_id !== undefined) await this.requireCheckpoint(target);
    const resolved = await this.graph(thread, READ);
    if (!resolved) return emptyThreadState();
    const snapshot = await resolved.graph.getState(target, { subgraphs: options.subgraphs ?? false });
    return toThreadState(snapshot);
  }

  /** Past states, newest first, `limit` (default 10) at most. */
  async history(threadId: string, query: HistoryQuery = {}): Promise<ThreadState[]> {
    const thread = await this.thread(threadId);
    const resolved = await this.graph(thread, READ);
    if (!resolved) return [];
    const states: ThreadState[] = [];
    const snapshots = resolved.graph.getStateHistory(this.config(threadId, query.checkpoint), {
      limit: query.limit ?? 10,
      ...(query.before ? { before: { configurable: { checkpoint_id: query.before } } } : {}),
      ...(query.metadata ? { filter: query.metadata } : {}),
    });
    for await (const snapshot of snapshots as AsyncIterable<StateSnapshot>) states.push(toThreadState(snapshot));
    return states;
  }

  /**
   * Applies `values` as if node `asNode` wrote them, on top of the given checkpoint (the latest when
   * omitted; an older one forks the thread from there, as LangGraph's `updateState` does). Refused with
   * `ConflictError` while a run of the thread is pending or running.
   */
  async updateState(threadId: string, request: StateUpdateRequest): Promise<{ checkpoint: StateCheckpoint }> {
    return this.write(threadId, request.checkpoint, (graph, config) => graph.updateState(config, request.values as never, request.asNode));
  }

  /** Applies supersteps of updates in order (`POST /threads` with `supersteps`). */
  async bulkUpdate(threadId: string, supersteps: Superstep[]): Promise<{ checkpoint: StateCheckpoint }> {
    if (supersteps.length === 0 || supersteps.some((s) => s.updates.length === 0)) {
      throw new InvalidInputError("supersteps: every superstep needs at least one update");
    }
    return this.write(threadId, undefined, (graph, config) => graph.bulkUpdateState(config, toLangGraphSupersteps(supersteps)));
  }

  /**
   * Coordinates of the thread's current checkpoint (latest of the root namespace), read straight from
   * the checkpointer — the same coordinates a run's outcome records — or null when it has none.
   * NotFoundError for an unknown thread.
   */
  async currentCheckpoint(threadId: string): Promise<Checkpoint | null> {
    await this.thread(threadId);
    const tuple = await this.storage.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const id = tuple?.checkpoint.id ?? (tuple?.config.configurable?.checkpoint_id as string | undefined);
    return id ? { thread_id: threadId, checkpoint_ns: "", checkpoint_id: id } : null;
  }

  /** Whether a pending or running run holds the thread (state writes must wait for it). */
  async isBusy(threadId: string): Promise<boolean> {
    const active = await this.storage.runs.search({ thread_id: threadId, status: [...ACTIVE_RUN_STATUSES], limit: 1 });
    return active.length > 0;
  }

  private async write(
    threadId: string,
    checkpoint: CheckpointSelector | undefined,
    apply: (graph: CompiledGraph, config: { configurable: Record<string, unknown> }) => Promise<{ configurable?: Record<string, unknown> }>,
  ): Promise<{ checkpoint: StateCheckpoint }> {
    const thread = await this.thread(threadId);
    if (await this.isBusy(threadId)) throw new ConflictError(THREAD_BUSY_MESSAGE);
    const resolved = await this.graph(thread, UPDATE);
    if (!resolved) {
      throw new InvalidInputError(`Thread ${threadId} has no graph: run it once or create it with metadata.graph_id`);
    }
    const config = this.config(threadId, checkpoint);
    if (config.configurable.checkpoint_id !== undefined) await this.requireCheckpoint(config);
    // As the official server: the update's checkpoint metadata names its graph, so the thread keeps one
    // (see resolveThreadGraph) even with no run and no graph in its metadata.
    config.configurable.graph_id = resolved.resolved.graphId;
    const next = await applyingUpdate(() => apply(resolved.graph, config));
    // The new state is read by a graph built for reading, as a graph factory is told (`threads.read`).
    const reader = await this.registry.get(resolved.resolved.graphId, resolved.resolved.config, { access: READ });
    await this.syncThread(threadId, reader);
    const written = toStateCheckpoint({ configurable: { thread_id: threadId, ...next.configurable } });
    if (!written) throw new Error("the checkpointer returned no checkpoint id for the update");
    return { checkpoint: written };
  }

  /**
   * The thread row mirrors the latest state: values, pending interrupts, and whether it waits to go on
   * (`interrupted` while the state has `next` nodes or pending interrupts, as after a run).
   */
  private async syncThread(threadId: string, graph: CompiledGraph): Promise<void> {
    const state = toThreadState(await graph.getState({ configurable: { thread_id: threadId } }));
    const interrupts = interruptsByTask(state);
    const waiting = state.next.length > 0 || Object.keys(interrupts).length > 0;
    await this.storage.threads.update(threadId, {
      values: (state.values ?? {}) as Record<string, unknown>,
      interrupts,
      status: waiting ? "interrupted" : "idle",
    });
  }

  private async thread(threadId: string): Promise<Thread> {
    const thread = await this.storage.threads.get(threadId);
    if (!thread) throw new NotFoundError(`Thread "${threadId}" not found`);
    return thread;
  }

  /** The thread's graph, built for `access` (a graph factory is told whether the state is read or written). */
  private async graph(thread: Thread, access: GraphAccess): Promise<{ graph: CompiledGraph; resolved: ThreadGraph } | null> {
    const resolved = await resolveThreadGraph(this.storage, this.registry, thread);
    if (!resolved) return null;
    return { graph: await this.registry.get(resolved.graphId, resolved.config, { access }), resolved };
  }

  private config(threadId: string, checkpoint: CheckpointSelector | undefined): { configurable: Record<string, unknown> } {
    const configurable: Record<string, unknown> = { thread_id: threadId, checkpoint_ns: checkpoint?.checkpoint_ns ?? "" };
    if (checkpoint?.checkpoint_id) configurable.checkpoint_id = checkpoint.checkpoint_id;
    if (checkpoint?.checkpoint_map) configurable.checkpoint_map = checkpoint.checkpoint_map;
    return { configurable };
  }

  /** A named checkpoint that does not exist is a 404, not an empty state or a fork from nothing. */
  private async requireCheckpoint(config: { configurable: Record<string, unknown> }): Promise<void> {
    const tuple = await this.storage.checkpointer.getTuple(config);
    if (!tuple) throw new NotFoundError(`Checkpoint "${String(config.configurable.checkpoint_id)}" not found`);
  }
}
