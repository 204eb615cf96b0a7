import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { isQueueingSaver, type WriteChain } from "@agent-server/core";
import type { CompiledGraph } from "../graphs/types.js";

/**
 * Where LangGraph looks for a saver lent to a graph call before its own (`Pregel._resolveCheckpointer`;
 * a parent graph lends its saver to subgraphs the same way). Not exported by @langchain/langgraph.
 */
export const LENT_CHECKPOINTER_KEY = "__pregel_checkpointer";

export interface RunSaverOptions {
  /** The run's own admission created the thread (attempt 1): it has no checkpoint yet. */
  newThread: boolean;
  /** The graph call saves with LangGraph's "async" durability: a step need not wait for the last save. */
  asyncDurability: boolean;
}

/** The saver a run lends its graph call, and what the run waits for before it settles. */
export interface RunSaver {
  saver: BaseCheckpointSaver;
  /** Resolves once every write queued through `saver` is durable; rejects with the first that failed. */
  committed(): Promise<void>;
  /**
   * The chain of the writes queued through `saver` (absent when it queues nothing): a later write of the
   * same queue that names it (the settlement's, `RunSettlement.after`) is applied only if they all landed.
   */
  chain?: WriteChain & { failed(error: unknown): boolean };
}

/**
 * The driver's saver as a run's graph call uses it (docs/engine.md, "Checkpoint writes of a run"):
 *
 * - On a thread its own admission created, LangGraph's opening read of the thread's latest root checkpoint
 *   (the first call of all) is answered "none" without asking storage (a statement, a PostgreSQL round trip).
 * - With "async" durability, over a driver whose writes commit in the order they are queued (core's
 *   QueueingCheckpointSaver: SQLite's group commit), `put` and `putWrites` resolve once their write is
 *   queued. LangGraph chains each save after the last one has resolved: answered at commit, every step's
 *   save was a commit of its own (three per A2A message); answered at queueing, a run's steps share one.
 *   Nothing is told outside before the run settles, and its settlement either follows the writes in the
 *   queue (`chain`, `RunSettlement.after`) or waits for `committed()`, so every answer still comes after
 *   its checkpoints are durable. A failed write fails the run's later writes and its settlement
 *   (`WriteChain`) and `committed()`, as a rejected save fails LangGraph's own chain and run.
 *
 * Every other call goes to the saver itself, with `this` the saver (its own state and commits stay one).
 */
export function runSaver(saver: BaseCheckpointSaver, options: RunSaverOptions): RunSaver {
  const overrides = new Map<PropertyKey, unknown>();
  if (options.newThread) {
    let firstRead = true;
    overrides.set("getTuple", (config: RunnableConfig): Promise<CheckpointTuple | undefined> => {
      const configurable = config.configurable ?? {};
      const first = firstRead;
      firstRead = false;
      if (first && (configurable.checkpoint_ns ?? "") === "" && configurable.checkpoint_id === undefined) return Promise.resolve(undefined);
      return saver.getTuple(config);
    });
  }
  let committed = (): Promise<void> => Promise.resolve();
  let chain: RunSaver["chain"];
  if (options.asyncDurability && isQueueingSaver(saver)) {
    const writes = new QueuedWrites();
    committed = () => writes.drained();
    chain = writes;
    overrides.set("put", async (...args: Parameters<BaseCheckpointSaver["put"]>) => {
      const [config, checkpoint, metadata, newVersions] = args;
      return writes.track(await saver.queuePut(config, checkpoint, metadata, newVersions, writes));
    });
    overrides.set("putWrites", async (...args: Parameters<BaseCheckpointSaver["putWrites"]>) => {
      const [config, pending, taskId] = args;
      writes.track(await saver.queuePutWrites(config, pending, taskId, writes));
    });
  }
  if (overrides.size === 0) return { saver, committed, ...(chain ? { chain } : {}) };
  const bound = new Map<PropertyKey, unknown>();
  const lent = new Proxy(saver, {
    get(target, property) {
      if (overrides.has(property)) return overrides.get(property);
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(property);
    },
  });
  return { saver: lent, committed, ...(chain ? { chain } : {}) };
}

/** The queued writes of one graph call: which are not yet durable, and the first that failed. */
class QueuedWrites implements WriteChain {
  private readonly pending = new Set<Promise<unknown>>();
  private failure: { error: unknown } | undefined;

  check(): void {
    if (this.failure) throw this.failure.error;
  }

  fail(error: unknown): void {
    this.failure ??= { error };
  }

  /** Whether `error` is the chain's failure (a write that named the chain was refused with it). */
  failed(error: unknown): boolean {
    return this.failure !== undefined && this.failure.error === error;
  }

  track<T>(queued: { value: T; committed: Promise<unknown> }): T {
    const settled: Promise<unknown> = queued.committed.then(
      () => this.pending.delete(settled),
      (error: unknown) => {
        this.fail(error);
        this.pending.delete(settled);
      },
    );
    this.pending.add(settled);
    return queued.value;
  }

  async drained(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    this.check();
  }
}

type Durability = "sync" | "async" | "exit";
interface DurabilityConfig {
  durability?: Durability;
  checkpointDuring?: boolean;
  configurable?: { __pregel_durability?: Durability };
}

const asyncSavers = new WeakMap<object, boolean>();

/**
 * Whether a call of `graph` without a durability of its own saves with "async" durability (or "exit"), as
 * LangGraph resolves it (`Pregel._defaults`: the graph's config, `checkpointDuring`, then "async"), and no
 * subgraph it declares asks for "sync" itself. The engine passes none: the API's `durability` is dropped.
 */
export function savesAsynchronously(graph: CompiledGraph): boolean {
  let known = asyncSavers.get(graph);
  if (known === undefined) {
    known = durabilityOf(graph.config as DurabilityConfig | undefined) !== "sync";
    try {
      for (const [, subgraph] of graph.getSubgraphs(undefined, true)) {
        if (durabilityOf((subgraph as CompiledGraph).config as DurabilityConfig | undefined) === "sync") known = false;
      }
    } catch {
      known = false;
    }
    asyncSavers.set(graph, known);
  }
  return known;
}

function durabilityOf(config: DurabilityConfig | undefined): Durability {
  if (config?.durability) return config.durability;
  if (config?.checkpointDuring !== undefined) return config.checkpointDuring ? "async" : "exit";
  return config?.configurable?.__pregel_durability ?? "async";
}
