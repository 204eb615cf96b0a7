import {
  maxChannelVersion,
  TASKS,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { Statements, type Db } from "./db.js";

/** The type suffix `sealedSerde` (core) marks a sealed value with. */
export const SEALED_TYPE_SUFFIX = "+aes";

/** A stored type without its seal mark: what the checkpoint's plaintext metadata was serialized as. */
export function baseType(type: string): string {
  return type.endsWith(SEALED_TYPE_SUFFIX) ? type.slice(0, -SEALED_TYPE_SUFFIX.length) : type;
}

/**
 * A pending write's value inside the JSON the reads aggregate. SqliteSaver casts it to TEXT, which a
 * sealed value (binary) does not survive: sealed values travel as hex, plaintext ones as before.
 */
const writeValue = (alias: string) =>
  `CASE WHEN ${alias}.type LIKE '%${SEALED_TYPE_SUFFIX}' THEN hex(${alias}.value) ELSE CAST(${alias}.value AS TEXT) END`;

/** SqliteSaver's tuple query, with sealed write values kept whole; one statement per read, as its own. */
const SELECT_TUPLES = `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata,
  (SELECT json_group_array(json_object('task_id', pw.task_id, 'channel', pw.channel, 'type', pw.type, 'value', ${writeValue("pw")}))
     FROM writes AS pw
    WHERE pw.thread_id = checkpoints.thread_id AND pw.checkpoint_ns = checkpoints.checkpoint_ns
      AND pw.checkpoint_id = checkpoints.checkpoint_id) AS pending_writes
  FROM checkpoints`;

const LATEST_SQL = `${SELECT_TUPLES} WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`;
const BY_ID_SQL = `${SELECT_TUPLES} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`;

/** The sends of a parent checkpoint, for checkpoints older than format 4 (as SqliteSaver migrates them). */
const SENDS_SQL = `SELECT json_group_array(json_object('type', ps.type, 'value', ${writeValue("ps")})) AS pending_sends
  FROM writes AS ps WHERE ps.thread_id = ? AND ps.checkpoint_id = ? AND ps.channel = '${TASKS}' ORDER BY ps.idx`;

export interface TupleRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Uint8Array;
  metadata: Uint8Array | string;
  pending_writes: string;
}

interface StoredWrite {
  task_id?: string;
  channel?: string;
  type: string | null;
  value: string | null;
}

/** The serializers a tuple is read with: checkpoints and writes sealed (each with its aad), metadata plain. */
export interface TupleSerdes {
  checkpoint: SerializerProtocol;
  writes: SerializerProtocol;
  metadata: SerializerProtocol;
}

/**
 * SqliteSaver's reads (getTuple, list) over the driver's connection, opening sealed checkpoints and
 * writes. Statements as SqliteSaver's: getTuple's prepared once, list's prepared per call (the query
 * budget counts prepares; caching it would lower that figure).
 */
export class CheckpointReads {
  private readonly s: Statements;

  constructor(
    private readonly db: Db,
    private readonly serdes: TupleSerdes,
  ) {
    this.s = new Statements(db);
  }

  row(threadId: string, checkpointNs: string, checkpointId: string | undefined): TupleRow | undefined {
    return (
      checkpointId ? this.s.get(BY_ID_SQL).get(threadId, checkpointNs, checkpointId) : this.s.get(LATEST_SQL).get(threadId, checkpointNs)
    ) as TupleRow | undefined;
  }

  /** SqliteSaver.list's query (its filters are JSON paths on the plaintext metadata). */
  rows(options: { threadId?: string; checkpointNs?: string; before?: string; filter: [string, unknown][]; limit?: number }): TupleRow[] {
    const where: string[] = [];
    if (options.threadId) where.push("thread_id = ?");
    if (options.checkpointNs !== undefined && options.checkpointNs !== null) where.push("checkpoint_ns = ?");
    if (options.before !== undefined) where.push("checkpoint_id < ?");
    where.push(...options.filter.map(() => "jsonb(CAST(metadata AS TEXT))->? = ?"));
    let sql = `${SELECT_TUPLES}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY checkpoint_id DESC`;
    if (options.limit) sql += ` LIMIT ${Math.trunc(options.limit)}`;
    const args = [
      options.threadId,
      options.checkpointNs,
      options.before,
      ...options.filter.flatMap(([key, value]) => [`$.${key}`, JSON.stringify(value)]),
    ].filter((value) => value !== undefined && value !== null);
    return this.db.prepare(sql).all(...args) as TupleRow[];
  }

  async tuple(row: TupleRow, config: CheckpointTuple["config"], checkpointNs: string): Promise<CheckpointTuple> {
    const type = row.type ?? "json";
    const pendingWrites = await Promise.all(
      (JSON.parse(row.pending_writes) as StoredWrite[]).map(
        async (write) => [write.task_id!, write.channel!, await this.writeValue(write)] as [string, string, unknown],
      ),
    );
    const checkpoint = (await this.serdes.checkpoint.loadsTyped(type, row.checkpoint)) as Checkpoint;
    if (checkpoint.v < 4 && row.parent_checkpoint_id != null) await this.migrateSends(checkpoint, row.thread_id, row.parent_checkpoint_id);
    return {
      checkpoint,
      config,
      metadata: (await this.serdes.metadata.loadsTyped(baseType(type), row.metadata)) as CheckpointMetadata,
      parentConfig: row.parent_checkpoint_id
        ? { configurable: { thread_id: row.thread_id, checkpoint_ns: checkpointNs, checkpoint_id: row.parent_checkpoint_id } }
        : undefined,
      pendingWrites,
    };
  }

  private writeValue(write: StoredWrite): Promise<unknown> {
    const type = write.type ?? "json";
    const value = write.value ?? "";
    return this.serdes.writes.loadsTyped(type, type.endsWith(SEALED_TYPE_SUFFIX) ? Buffer.from(value, "hex") : value);
  }

  /** As SqliteSaver.migratePendingSends: a format < 4 checkpoint gets its parent's sends as the TASKS channel. */
  private async migrateSends(checkpoint: Checkpoint, threadId: string, parentCheckpointId: string): Promise<void> {
    const { pending_sends } = this.s.get(SENDS_SQL).get(threadId, parentCheckpointId) as { pending_sends: string };
    const mutable = checkpoint as Checkpoint & { channel_values: Record<string, unknown> };
    mutable.channel_values ??= {};
    mutable.channel_values[TASKS] = await Promise.all((JSON.parse(pending_sends) as StoredWrite[]).map((send) => this.writeValue(send)));
    mutable.channel_versions[TASKS] =
      Object.keys(checkpoint.channel_versions).length > 0 ? maxChannelVersion(...Object.values(checkpoint.channel_versions)) : 1;
  }
}
