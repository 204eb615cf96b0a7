import type { Storage } from "@agent-server/core";
import { decodeBytes, encodeBytes, type CheckpointEntry } from "./format.js";

/** The driver's LangGraph checkpointer and the types it deals in (no direct langgraph-checkpoint import). */
export type Saver = Storage["checkpointer"];
export type CheckpointTuple = NonNullable<Awaited<ReturnType<Saver["getTuple"]>>>;
type SaverCheckpoint = CheckpointTuple["checkpoint"];
type SaverMetadata = NonNullable<CheckpointTuple["metadata"]>;

/** A checkpoint as the importer restores it: coordinates, parent link, decoded payloads and pending writes. */
export interface RestorableCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: SaverCheckpoint;
  metadata: SaverMetadata;
  writes: { task_id: string; channel: string; value: unknown }[];
}

/**
 * Every checkpoint of a thread, all namespaces, with pending writes, as the saver's `list` yields them.
 * `list` without `checkpoint_ns` covers every namespace in MemorySaver, SqliteSaver and PostgresSaver.
 * Memory: whatever the saver's `list` buffers for one thread (SqliteSaver/PostgresSaver read a thread's
 * rows at once; MemorySaver yields lazily); the exporter writes each one out before taking the next.
 */
export async function* threadCheckpoints(saver: Saver, threadId: string): AsyncGenerator<RestorableCheckpoint> {
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    yield fromTuple(tuple);
  }
}

export function fromTuple(tuple: CheckpointTuple): RestorableCheckpoint {
  const configurable = tuple.config.configurable ?? {};
  const parentId = tuple.parentConfig?.configurable?.checkpoint_id;
  return {
    thread_id: String(configurable.thread_id),
    checkpoint_ns: String(configurable.checkpoint_ns ?? ""),
    checkpoint_id: String(configurable.checkpoint_id ?? tuple.checkpoint.id),
    parent_checkpoint_id: typeof parentId === "string" && parentId !== "" ? parentId : null,
    checkpoint: tuple.checkpoint,
    metadata: tuple.metadata ?? ({} as SaverMetadata),
    writes: (tuple.pendingWrites ?? []).map(([task_id, channel, value]) => ({ task_id, channel, value })),
  };
}

/** Serializes with the source saver's `serde.dumpsTyped` (what the saver itself stores), base64. */
export async function toEntry(saver: Saver, checkpoint: RestorableCheckpoint): Promise<CheckpointEntry> {
  const dump = async (value: unknown) => {
    const [type, bytes] = await saver.serde.dumpsTyped(value);
    return encodeBytes(type, bytes);
  };
  return {
    type: "checkpoint",
    thread_id: checkpoint.thread_id,
    checkpoint_ns: checkpoint.checkpoint_ns,
    checkpoint_id: checkpoint.checkpoint_id,
    parent_checkpoint_id: checkpoint.parent_checkpoint_id,
    checkpoint: await dump(checkpoint.checkpoint),
    metadata: await dump(checkpoint.metadata),
    writes: await Promise.all(checkpoint.writes.map(async (w) => ({ task_id: w.task_id, channel: w.channel, value: await dump(w.value) }))),
  };
}

/** Decodes with the target saver's `serde.loadsTyped` (every LangGraph saver reads the "json" type). */
export async function fromEntry(saver: Saver, entry: CheckpointEntry): Promise<RestorableCheckpoint> {
  const load = (value: { type: string; data: string }) => saver.serde.loadsTyped(value.type, decodeBytes(value));
  return {
    thread_id: entry.thread_id,
    checkpoint_ns: entry.checkpoint_ns ?? "",
    checkpoint_id: entry.checkpoint_id,
    parent_checkpoint_id: entry.parent_checkpoint_id ?? null,
    checkpoint: (await load(entry.checkpoint)) as SaverCheckpoint,
    metadata: (await load(entry.metadata)) as SaverMetadata,
    writes: await Promise.all(
      (entry.writes ?? []).map(async (w) => ({ task_id: w.task_id, channel: w.channel, value: await load(w.value) })),
    ),
  };
}

/** Whether the target saver already has exactly this checkpoint. */
export async function checkpointExists(
  saver: Saver,
  c: Pick<RestorableCheckpoint, "thread_id" | "checkpoint_ns" | "checkpoint_id">,
): Promise<boolean> {
  const tuple = await saver.getTuple({
    configurable: { thread_id: c.thread_id, checkpoint_ns: c.checkpoint_ns, checkpoint_id: c.checkpoint_id },
  });
  return tuple !== undefined && tuple.checkpoint.id === c.checkpoint_id;
}

/**
 * Writes the checkpoint under its own id with its parent link, then its pending writes grouped by task
 * (in their original order, so each task's write indexes come out as before).
 *
 * `put` takes the parent from `config.configurable.checkpoint_id` in every LangGraph saver; `newVersions`
 * is every channel version, so PostgresSaver stores every channel blob (the others ignore it). A saver's
 * `put` may add keys from the config to the metadata; the config carries only the coordinates.
 */
export async function restoreCheckpoint(saver: Saver, c: RestorableCheckpoint): Promise<void> {
  const parentConfig = {
    configurable: {
      thread_id: c.thread_id,
      checkpoint_ns: c.checkpoint_ns,
      ...(c.parent_checkpoint_id !== null ? { checkpoint_id: c.parent_checkpoint_id } : {}),
    },
  };
  const saved = await saver.put(parentConfig, c.checkpoint, c.metadata, { ...(c.checkpoint.channel_versions ?? {}) });
  const at = {
    configurable: {
      thread_id: c.thread_id,
      checkpoint_ns: c.checkpoint_ns,
      checkpoint_id: saved.configurable?.checkpoint_id ?? c.checkpoint_id,
    },
  };
  const byTask = new Map<string, [string, unknown][]>();
  for (const write of c.writes) {
    let list = byTask.get(write.task_id);
    if (!list) byTask.set(write.task_id, (list = []));
    list.push([write.channel, write.value]);
  }
  for (const [taskId, writes] of byTask) await saver.putWrites(at, writes, taskId);
}
