import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { DefaultValues } from "../model.js";

/**
 * Where a thread's `values` are after a run, instead of a copy of them: the root checkpoint the run ended
 * on and the state keys it had then. Settlement writes this pointer (a few bytes) where it used to write
 * the whole state into the thread row, which made every turn of a long thread cost O(state) more than
 * LangGraph's own checkpoint write. A driver turns the pointer back into values when a thread is read
 * (`valuesFromCheckpoint`), keeps that copy, and writes the copy only if no newer pointer replaced it.
 */
export interface ThreadValuesRef {
  checkpoint_ns: string;
  checkpoint_id: string;
  /** The state keys of the run's final values: a checkpoint also holds LangGraph's internal channels. */
  keys: string[];
}

/**
 * The values `ref` points to, read through the driver's checkpointer: the named checkpoint, else (pruned
 * since) the thread's latest root checkpoint, each key taken from its channel. Null when the thread has no
 * checkpoint left. Costs one checkpoint load: O(state).
 */
export async function valuesFromCheckpoint(
  checkpointer: BaseCheckpointSaver,
  threadId: string,
  ref: ThreadValuesRef,
): Promise<DefaultValues | null> {
  const tuple =
    (await checkpointer.getTuple({
      configurable: { thread_id: threadId, checkpoint_ns: ref.checkpoint_ns, checkpoint_id: ref.checkpoint_id },
    })) ?? (await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ref.checkpoint_ns } }));
  if (!tuple) return null;
  const channels = tuple.checkpoint.channel_values as Record<string, unknown>;
  const values: DefaultValues = {};
  for (const key of ref.keys) if (key in channels) values[key] = channels[key];
  return values;
}

/** A stored ref as the driver's JSON column reads it; null when it is not one. */
export function parseValuesRef(ref: unknown): ThreadValuesRef | null {
  if (typeof ref !== "object" || ref === null) return null;
  const { checkpoint_ns, checkpoint_id, keys } = ref as Record<string, unknown>;
  if (typeof checkpoint_ns !== "string" || typeof checkpoint_id !== "string" || !Array.isArray(keys)) return null;
  return { checkpoint_ns, checkpoint_id, keys: keys.filter((k): k is string => typeof k === "string") };
}
