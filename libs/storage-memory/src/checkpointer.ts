import { MemorySaver, type Checkpoint, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { checkpointMetadata, copiedCheckpointMetadata } from "@agent-server/core";

/** LangChain's RunnableConfig, taken from the saver's own signature (no direct @langchain/core dependency). */
type RunnableConfig = Parameters<MemorySaver["put"]>[0];

/**
 * `MemorySaver` that records which run wrote each checkpoint.
 *
 * Every `put` saves core's `checkpointMetadata(config, metadata)`: the run's context and its `run_id`,
 * so rollback (`RunRepo.delete(..., { checkpoints: true })`) can find a run's checkpoints, in every
 * namespace (subgraph checkpoints get it too).
 *
 * Layout of MemorySaver (langgraph-checkpoint 1.2.2, dist/memory.js), which the thread operations below
 * manipulate directly:
 * - `storage[threadId][checkpointNs][checkpointId] = [checkpointBytes, metadataBytes, parentCheckpointId]`
 *   (bytes as produced by `serde.dumpsTyped`, read back with `serde.loadsTyped("json", bytes)`);
 * - `writes[JSON.stringify([threadId, checkpointNs, checkpointId])]["<taskId>,<idx>"] =
 *   [taskId, channel, valueBytes, taskPath]`.
 * The latest checkpoint of a namespace is the greatest checkpoint id (ids sort by time).
 */
export class RunAwareMemorySaver extends MemorySaver {
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    return super.put(config, checkpoint, checkpointMetadata(config, metadata) as CheckpointMetadata);
  }

  /**
   * Deletes the checkpoints of `threadId` whose metadata names `runId`, with their pending writes.
   * O(checkpoints of the thread) metadata decodes.
   */
  async deleteRunCheckpoints(threadId: string, runId: string): Promise<number> {
    const doomed: Array<[string, string]> = [];
    for (const [ns, checkpoints] of Object.entries(this.storage[threadId] ?? {})) {
      for (const [checkpointId, [, metadataBytes]] of Object.entries(checkpoints)) {
        const metadata = (await this.serde.loadsTyped("json", metadataBytes)) as Record<string, unknown>;
        if (metadata?.run_id === runId) doomed.push([ns, checkpointId]);
      }
    }
    for (const [ns, checkpointId] of doomed) this.removeCheckpoint(threadId, ns, checkpointId);
    return doomed.length;
  }

  /** Keeps only the latest checkpoint of each namespace of the thread (and its writes). */
  pruneKeepLatest(threadId: string): void {
    for (const [ns, checkpoints] of Object.entries(this.storage[threadId] ?? {})) {
      const ids = Object.keys(checkpoints).sort();
      for (const checkpointId of ids.slice(0, -1)) this.removeCheckpoint(threadId, ns, checkpointId);
    }
  }

  /**
   * Copies every checkpoint (all namespaces, same checkpoint ids) and pending write of `sourceThreadId` to
   * `targetThreadId`, metadata as core's `copiedCheckpointMetadata` has it.
   */
  async copyThread(sourceThreadId: string, targetThreadId: string): Promise<void> {
    const source = this.storage[sourceThreadId];
    if (!source) return;
    const target: (typeof this.storage)[string] = Object.create(null);
    for (const [ns, checkpoints] of Object.entries(source)) {
      target[ns] = Object.create(null);
      for (const [checkpointId, [checkpointBytes, metadataBytes, parentId]] of Object.entries(checkpoints)) {
        const metadata = (await this.serde.loadsTyped("json", metadataBytes)) as Record<string, unknown>;
        const [, newMetadataBytes] = await this.serde.dumpsTyped(copiedCheckpointMetadata(metadata, sourceThreadId, targetThreadId));
        target[ns][checkpointId] = [checkpointBytes.slice(), newMetadataBytes, parentId];
        const writes = this.writes[writesKey(sourceThreadId, ns, checkpointId)];
        if (writes) {
          const copied: (typeof this.writes)[string] = Object.create(null);
          for (const [inner, [taskId, channel, value, taskPath]] of Object.entries(writes)) {
            copied[inner] = [taskId, channel, value.slice(), taskPath];
          }
          this.writes[writesKey(targetThreadId, ns, checkpointId)] = copied;
        }
      }
    }
    this.storage[targetThreadId] = target;
  }

  private removeCheckpoint(threadId: string, ns: string, checkpointId: string): void {
    const namespace = this.storage[threadId]?.[ns];
    if (!namespace) return;
    delete namespace[checkpointId];
    delete this.writes[writesKey(threadId, ns, checkpointId)];
    if (Object.keys(namespace).length === 0) delete this.storage[threadId][ns];
  }
}

function writesKey(threadId: string, ns: string, checkpointId: string): string {
  return JSON.stringify([threadId, ns, checkpointId]);
}
