import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

type SaverPut = BaseCheckpointSaver["put"];
type SaverPutWrites = BaseCheckpointSaver["putWrites"];

/** One checkpoint or pending-writes batch, serialized (and sealed) by the saver, not yet written. */
export interface PreparedCheckpointWrite {
  readonly kind: "checkpoint" | "writes";
}

/**
 * A checkpointer whose writes can be serialized at once and committed later, several together (optional;
 * the SQLite and PostgreSQL savers have it). `put` and `putWrites` stay what they are: a prepare and a
 * commit of one. The engine holds a run's writes this way for a short window (docs/engine.md, "Checkpoint
 * writes of a run"): LangGraph does not wait for them between steps ("async" durability), and a run of a few
 * steps then commits its checkpoints in one transaction (SQLite) or one statement (PostgreSQL) instead of
 * one each. Serializing at once keeps what each write holds what the graph had at that step.
 */
export interface PreparingCheckpointSaver extends BaseCheckpointSaver {
  prepareCheckpoint(...args: Parameters<SaverPut>): Promise<PreparedCheckpointWrite>;
  preparePendingWrites(...args: Parameters<SaverPutWrites>): Promise<PreparedCheckpointWrite>;
  /** Writes `prepared` in their order, atomically; resolves once committed. */
  commitPrepared(prepared: readonly PreparedCheckpointWrite[]): Promise<void>;
}

export function canPrepareCheckpointWrites(saver: BaseCheckpointSaver): saver is PreparingCheckpointSaver {
  const candidate = saver as Partial<PreparingCheckpointSaver>;
  return (
    typeof candidate.prepareCheckpoint === "function" &&
    typeof candidate.preparePendingWrites === "function" &&
    typeof candidate.commitPrepared === "function"
  );
}
