import { WRITES_IDX_MAP, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { checkpointMetadata, sealedSerde } from "@agent-server/core";
import type pg from "pg";
import { decodeJsonText, encodeJsonText } from "./db.js";
import { Sealer } from "./sealing.js";

type SaverConfig = Parameters<PostgresSaver["put"]>[0];
type SaverCheckpoint = Parameters<PostgresSaver["put"]>[1];
type SaverMetadata = Parameters<PostgresSaver["put"]>[2];
type SaverVersions = Parameters<PostgresSaver["put"]>[3];
type SaverWrites = Parameters<PostgresSaver["putWrites"]>[1];
type BlobRows = [Uint8Array, Uint8Array, Uint8Array][];
type WriteRows = [Uint8Array, Uint8Array, Uint8Array, Uint8Array][];

/**
 * `PostgresSaver` that records which run wrote each checkpoint.
 *
 * Every `put` saves core's `checkpointMetadata(config, metadata)`: the run's context and its `run_id`,
 * so rollback (`RunRepo.delete(id, { checkpoints: true })`) finds a run's checkpoints by
 * `metadata->>'run_id'`, in every namespace.
 *
 * With a key, channel values (checkpoint_blobs) and pending writes (checkpoint_writes) are sealed by
 * `sealedSerde` (type `<type>+aes`); the checkpoint row itself holds ids and channel versions, which the
 * saver's own SQL joins on, and stays plaintext, as does its metadata (history filters read it) but for
 * LANGGRAPH_AES_JSON_KEYS, sealed like every metadata column's.
 */
export class RunAwarePostgresSaver extends PostgresSaver {
  private readonly writes: WriteStatements;
  private readonly blobSerde: SerializerProtocol;
  private readonly writeSerde: SerializerProtocol;

  constructor(
    private readonly writePool: pg.Pool,
    schema: string,
    private readonly seal: Sealer = new Sealer(),
  ) {
    super(writePool, undefined, { schema });
    this.writes = writeStatements(schema);
    this.blobSerde = sealedSerde(this.serde, seal.cipher, "checkpoint_blobs.blob");
    this.writeSerde = sealedSerde(this.serde, seal.cipher, "checkpoint_writes.blob");
  }

  /**
   * Channel versions as `<32-digit counter>.<random>` strings, as Python's PostgresSaver makes them.
   * Blobs are keyed by (thread, ns, channel, version) and written with ON CONFLICT DO NOTHING, so with the
   * JS saver's plain counters a fork (a state update or run from an older checkpoint) would reuse a
   * version a later checkpoint already wrote and silently read that later value back. The random part
   * makes every written version unique; the zero-padded counter keeps string comparison ordered.
   */
  override getNextVersion(current: number | undefined): number {
    const previous = current === undefined ? 0 : Number.parseInt(String(current).split(".")[0], 10) || 0;
    const random = Math.random().toFixed(16).slice(2);
    return `${String(previous + 1).padStart(32, "0")}.${random}` as unknown as number;
  }

  /**
   * One statement, so one round trip: the blobs' insert is a data-modifying CTE of the checkpoint's, and a
   * single statement is atomic. PostgresSaver sends BEGIN, one INSERT per changed channel, the checkpoint
   * and COMMIT (3 + channels round trips, each holding a pooled connection).
   */
  override async put(config: SaverConfig, checkpoint: SaverCheckpoint, metadata: SaverMetadata, newVersions: SaverVersions) {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    const { thread_id: threadId, checkpoint_ns: checkpointNs = "", checkpoint_id: parentId } = config.configurable;
    const [blobs, dumpedMetadata] = await Promise.all([
      this._dumpBlobs(threadId, checkpointNs, checkpoint.channel_values, newVersions),
      this._dumpMetadata(checkpointMetadata(config, metadata) as SaverMetadata),
    ]);
    const params: unknown[] = [threadId, checkpointNs, checkpoint.id, parentId, this._dumpCheckpoint(checkpoint), dumpedMetadata];
    const rows = blobs.map(([, , channel, version, type, blob]) => `($1, $2, ${placeholders(params, [channel, version, type, blob])})`);
    await this.writePool.query(this.writes.checkpoint(rows), params);
    return { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpoint.id } };
  }

  /**
   * One multi-row INSERT (PostgresSaver: BEGIN, one INSERT per write, COMMIT). A task's special writes
   * (error, interrupt, resume…) replace earlier ones at their fixed index, as PostgresSaver's upserts one by
   * one do; a repeated index within the batch keeps the last, since one statement cannot update a row twice.
   */
  override async putWrites(config: SaverConfig, writes: SaverWrites, taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const upsert = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId } = config.configurable ?? {};
    let dumped = await this._dumpWrites(threadId, checkpointNs, checkpointId, taskId, writes);
    if (upsert) dumped = [...new Map(dumped.map((row) => [row[4], row])).values()];
    const params: unknown[] = [threadId, checkpointNs, checkpointId, taskId];
    const rows = dumped.map(
      ([, , , , idx, channel, type, blob]) => `($1, $2, $3, $4, ${placeholders(params, [idx, channel, type, blob])})`,
    );
    await this.writePool.query(this.writes.pendingWrites(rows, upsert), params);
  }
  // Checkpoint metadata is jsonb, which refuses NUL and lone surrogates: a run whose metadata held one
  // failed at its first checkpoint on PostgreSQL alone. It is stored NUL-encoded as every jsonb value of
  // ours is (db.ts), and filters are encoded the same way, so `@>` still compares like with like.
  protected override async _dumpMetadata(metadata: SaverMetadata): Promise<unknown> {
    return jsonbSafe(this.seal.value("checkpoints", "metadata", await super._dumpMetadata(metadata)), encodeJsonText);
  }

  protected override async _loadMetadata(metadata: Record<string, unknown>): Promise<unknown> {
    return this.seal.open(
      "checkpoints",
      "metadata",
      await super._loadMetadata(jsonbSafe(metadata, decodeJsonText) as Record<string, unknown>),
    );
  }

  // PostgresSaver's four (de)serializing steps as it has them, through the sealing serializers: its own
  // `serde` also loads metadata, which stays plaintext.
  protected override async _dumpBlobs(threadId: string, checkpointNs: string, values: Record<string, unknown>, versions: SaverVersions) {
    return Promise.all(
      Object.entries(versions).map(async ([channel, version]) => {
        const [type, value] = channel in values ? await this.blobSerde.dumpsTyped(values[channel]) : ["empty", null];
        const row: [string, string, string, string, string, Uint8Array | undefined] = [
          threadId,
          checkpointNs,
          channel,
          version.toString(),
          type,
          value ? new Uint8Array(value) : undefined,
        ];
        return row;
      }),
    );
  }

  protected override async _loadBlobs(blobValues: BlobRows): Promise<Record<string, unknown>> {
    if (!blobValues || blobValues.length === 0) return {};
    const text = new TextDecoder();
    const entries = await Promise.all(
      blobValues
        .filter(([, type]) => text.decode(type) !== "empty")
        .map(async ([channel, type, value]) => [text.decode(channel), await this.blobSerde.loadsTyped(text.decode(type), value)] as const),
    );
    return Object.fromEntries(entries);
  }

  protected override async _dumpWrites(threadId: string, checkpointNs: string, checkpointId: string, taskId: string, writes: SaverWrites) {
    return Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, serialized] = await this.writeSerde.dumpsTyped(value);
        const row: [string, string, string, string, number, string, string, Uint8Array] = [
          threadId,
          checkpointNs,
          checkpointId,
          taskId,
          WRITES_IDX_MAP[channel] ?? idx,
          channel,
          type,
          new Uint8Array(serialized),
        ];
        return row;
      }),
    );
  }

  protected override async _loadWrites(writes: WriteRows): Promise<[string, string, unknown][]> {
    if (!writes) return [];
    const text = new TextDecoder();
    const load = async ([taskId, channel, type, value]: WriteRows[number]): Promise<[string, string, unknown]> => [
      text.decode(taskId),
      text.decode(channel),
      await this.writeSerde.loadsTyped(text.decode(type), value),
    ];
    return Promise.all(writes.map(load));
  }

  protected override _searchWhere(config?: SaverConfig, filter?: Record<string, unknown>, before?: SaverConfig): [string, unknown[]] {
    return super._searchWhere(config, filter && (jsonbSafe(filter, encodeJsonText) as Record<string, unknown>), before);
  }
}

type WriteStatements = ReturnType<typeof writeStatements>;

/** The saver's writes as single statements over the tables PostgresSaver's migrations create. */
function writeStatements(schema: string) {
  const s = `"${schema}"`;
  const checkpointInsert = `INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
  const writesInsert = `INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES `;
  return {
    checkpoint: (blobRows: string[]) =>
      blobRows.length === 0
        ? checkpointInsert
        : `WITH blobs AS (INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
             VALUES ${blobRows.join(", ")}
             ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING)
           ${checkpointInsert}`,
    pendingWrites: (rows: string[], upsert: boolean) =>
      writesInsert +
      rows.join(", ") +
      (upsert
        ? ` ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob`
        : ` ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING`),
  };
}

/** Appends `values` to `params` and returns their placeholders (`$7, $8, …`). */
function placeholders(params: unknown[], values: unknown[]): string {
  return values.map((value) => `$${params.push(value)}`).join(", ");
}

/** `value` through its JSON text, rewritten by `code`; the value itself when the text is unchanged. */
function jsonbSafe(value: unknown, code: (json: string) => string): unknown {
  const json = JSON.stringify(value);
  if (json === undefined) return value;
  const coded = code(json);
  return coded === json ? value : JSON.parse(coded);
}

/**
 * SQL over the saver's tables (checkpoints, checkpoint_blobs, checkpoint_writes), for the thread and run
 * operations the saver has no API for. Blobs are keyed by (thread, ns, channel, version) and shared by
 * the checkpoints whose `channel_versions` name them, so after removing checkpoints we delete only the
 * blobs no remaining checkpoint of the thread references.
 */
export function checkpointSql(schema: string) {
  const s = `"${schema}"`;
  const cp = `${s}.checkpoints`;
  const blobs = `${s}.checkpoint_blobs`;
  const writes = `${s}.checkpoint_writes`;
  const orphanBlobs = `DELETE FROM ${blobs} b WHERE b.thread_id = $1 AND NOT EXISTS (
      SELECT 1 FROM ${cp} c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
        AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`;
  return {
    deleteThread: [
      `DELETE FROM ${writes} WHERE thread_id = $1`,
      `DELETE FROM ${blobs} WHERE thread_id = $1`,
      `DELETE FROM ${cp} WHERE thread_id = $1`,
    ],
    /** $1 thread, $2 run id. */
    deleteRun: [
      `DELETE FROM ${writes} w USING ${cp} c WHERE c.thread_id = $1 AND c.metadata ->> 'run_id' = $2
         AND w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id`,
      `DELETE FROM ${cp} WHERE thread_id = $1 AND metadata ->> 'run_id' = $2`,
      orphanBlobs,
    ],
    /** Keeps the latest checkpoint (greatest id) of each namespace of thread $1. */
    pruneKeepLatest: [
      `DELETE FROM ${writes} w WHERE w.thread_id = $1 AND w.checkpoint_id < (
         SELECT max(c.checkpoint_id) FROM ${cp} c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns)`,
      `DELETE FROM ${cp} c WHERE c.thread_id = $1 AND c.checkpoint_id < (
         SELECT max(l.checkpoint_id) FROM ${cp} l WHERE l.thread_id = c.thread_id AND l.checkpoint_ns = c.checkpoint_ns)`,
      orphanBlobs,
    ],
    /**
     * Copies thread $1 to thread $2, checkpoint metadata as core's `copiedCheckpointMetadata` has it
     * (written in SQL here, so the copy stays a few statements).
     */
    copyThread: [
      `INSERT INTO ${cp} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       SELECT $2::text, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint,
              CASE WHEN metadata ->> 'thread_id' = $1 THEN jsonb_set(metadata, '{thread_id}', to_jsonb($2::text)) ELSE metadata END
         FROM ${cp}
        WHERE thread_id = $1`,
      `INSERT INTO ${blobs} (thread_id, checkpoint_ns, channel, version, type, blob)
       SELECT $2::text, checkpoint_ns, channel, version, type, blob FROM ${blobs} WHERE thread_id = $1`,
      `INSERT INTO ${writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       SELECT $2::text, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM ${writes} WHERE thread_id = $1`,
    ],
    truncate: `TRUNCATE ${writes}, ${blobs}, ${cp}`,
  };
}
