import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver, Checkpoint, ChannelVersions, CheckpointMetadata, PendingWrite } from "@langchain/langgraph-checkpoint";

/** A checkpoint write in a driver's commit queue: `committed` settles once it is durable (or failed). */
export interface QueuedWrite<T> {
  value: T;
  committed: Promise<unknown>;
}

/**
 * The queued writes of one graph call. Each asks `check` as it is applied (inside its transaction, as the
 * queue commits), and a write that failed for good says so through `fail` before any later write is
 * applied: once one has failed, the later ones fail without being applied, so the thread keeps no
 * checkpoint past the gap (LangGraph's own chain of saves stops the same way).
 */
export interface WriteChain {
  /** Throws the chain's first failure, if any. */
  check(): void;
  /** A write of the chain failed for good. */
  fail(error: unknown): void;
}

/**
 * A saver whose writes go into a commit queue that commits them in the order they were queued (SQLite's
 * group commit; on PostgreSQL, a chain's batches). `queuePut` and `queuePutWrites` resolve once the write
 * is queued, and `committed` once it is durable. A write without a chain is committed on its own.
 */
export interface QueueingCheckpointSaver {
  queuePut(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    chain?: WriteChain,
  ): Promise<QueuedWrite<RunnableConfig>>;
  queuePutWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, chain?: WriteChain): Promise<QueuedWrite<void>>;
}

export function isQueueingSaver(saver: BaseCheckpointSaver): saver is BaseCheckpointSaver & QueueingCheckpointSaver {
  const candidate = saver as Partial<QueueingCheckpointSaver>;
  return typeof candidate.queuePut === "function" && typeof candidate.queuePutWrites === "function";
}
