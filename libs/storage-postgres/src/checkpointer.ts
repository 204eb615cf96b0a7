import { WRITES_IDX_MAP, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { checkpointMetadata, sealedSerde, type QueuedWrite, type QueueingCheckpointSaver, type WriteChain } from "@agent-server/core";
import type pg from "pg";
import { CheckpointBatches } from "./checkpoint-batches.js";
import { CheckpointRows } from "./checkpoint-rows.js";
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
export class RunAwarePostgresSaver extends PostgresSaver implements QueueingCheckpointSaver {
  /** The writes graph calls queue (`queuePut`, `queuePutWrites`), a statement per call and event-loop turn. */
  readonly batches: CheckpointBatches;
  private readonly blobSerde: SerializerProtocol;
  private readonly writeSerde: SerializerProtocol;

  constructor(
    private readonly writePool: pg.Pool,
    private readonly schema: string,
    private readonly seal: Sealer = new Sealer(),
  ) {
    super(writePool, undefined, { schema });
    this.batches = new CheckpointBatches((rows) => this.commitRows(rows));
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
    const rows = new CheckpointRows();
    const saved = await this.putRows(rows, config, checkpoint, metadata, newVersions);
    await this.commitRows(rows);
    return saved;
  }

  /**
   * One multi-row INSERT (PostgresSaver: BEGIN, one INSERT per write, COMMIT). A task's special writes
   * (error, interrupt, resume…) replace earlier ones at their fixed index, as PostgresSaver's upserts one by
   * one do; a repeated index within the batch keeps the last, since one statement cannot update a row twice.
   */
  override async putWrites(config: SaverConfig, writes: SaverWrites, taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const rows = new CheckpointRows();
    await this.putWritesRows(rows, config, writes, taskId);
    await this.commitRows(rows);
  }

  /** `put`, resolved once the checkpoint is in its chain's batch (core's QueueingCheckpointSaver; see CheckpointBatches). */
  async queuePut(
    config: SaverConfig,
    checkpoint: SaverCheckpoint,
    metadata: SaverMetadata,
    newVersions: SaverVersions,
    chain?: WriteChain,
  ): Promise<QueuedWrite<SaverConfig>> {
    const staged = new CheckpointRows();
    const value = await this.putRows(staged, config, checkpoint, metadata, newVersions);
    return { value, committed: this.queue(staged, chain) };
  }

  /** `putWrites`, resolved once the writes are in their chain's batch (core's QueueingCheckpointSaver). */
  async queuePutWrites(config: SaverConfig, writes: SaverWrites, taskId: string, chain?: WriteChain): Promise<QueuedWrite<void>> {
    const staged = new CheckpointRows();
    if (writes.length > 0) await this.putWritesRows(staged, config, writes, taskId);
    return { value: undefined, committed: staged.empty ? Promise.resolve() : this.queue(staged, chain) };
  }

  private queue(staged: CheckpointRows, chain: WriteChain | undefined): Promise<void> {
    return chain ? this.batches.queue(chain, staged) : this.commitRows(staged);
  }

  private async commitRows(rows: CheckpointRows): Promise<void> {
    const { text, values } = rows.statement(this.schema);
    await this.writePool.query(text, values);
  }

  /** Adds a checkpoint's rows (its changed channels' blobs and itself) to `rows`; what `put` answers. */
  private async putRows(
    rows: CheckpointRows,
    config: SaverConfig,
    checkpoint: SaverCheckpoint,
    metadata: SaverMetadata,
    newVersions: SaverVersions,
  ): Promise<SaverConfig> {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    const { thread_id: threadId, checkpoint_ns: checkpointNs = "", checkpoint_id: parentId } = config.configurable;
    const [blobs, dumpedMetadata] = await Promise.all([
      this._dumpBlobs(threadId, checkpointNs, checkpoint.channel_values, newVersions),
      this._dumpMetadata(checkpointMetadata(config, metadata) as SaverMetadata),
    ]);
    rows.addPut(blobs, [threadId, checkpointNs, checkpoint.id, parentId, this._dumpCheckpoint(checkpoint), dumpedMetadata]);
    return { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpoint.id } };
  }

  private async putWritesRows(rows: CheckpointRows, config: SaverConfig, writes: SaverWrites, taskId: string): Promise<void> {
    const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId } = config.configurable ?? {};
    rows.addWrites(await this._dumpWrites(threadId, checkpointNs, checkpointId, taskId, writes), replace);
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
