import {
  copyCheckpoint,
  WRITES_IDX_MAP,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import {
  checkpointMetadata,
  copiedCheckpointMetadata,
  NO_ENCRYPTION,
  sealedSerde,
  type FieldCipher,
  type QueuedWrite,
  type QueueingCheckpointSaver,
  type WriteChain,
} from "@agent-server/core";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { baseType, CheckpointReads } from "./checkpoint-reads.js";
import { Statements, type Db } from "./db.js";
import { GroupCommit } from "./group-commit.js";
import { CHECKPOINT_BLOB, WRITE_BLOB } from "./sealing.js";
import { CHECKPOINT_RUN_ID_EXPR } from "./migrations.js";

/** A write that first asks its chain whether an earlier write of the chain failed. */
function chained(chain: WriteChain | undefined, apply: () => unknown): () => void {
  return () => {
    chain?.check();
    apply();
  };
}

/**
 * The SqliteSaver graphs run with, over the driver's own connection.
 *
 * Every `put` saves core's `checkpointMetadata(config, metadata)` (the rule every driver shares): the
 * run's context and its `run_id`, by which rollback (`RunRepo.delete({ checkpoints: true })`) finds a
 * run's checkpoints.
 *
 * With a sealing cipher, checkpoints and pending writes are sealed (core's `sealedSerde`, type `<type>+aes`);
 * metadata stays plaintext: history filters, rollback and copy read it in SQL. Reads are its own
 * (checkpoint-reads.ts): SqliteSaver's would pass a sealed write through a TEXT cast.
 */
export class AgentSqliteSaver extends SqliteSaver implements QueueingCheckpointSaver {
  /** SqliteSaver prepares its insert statements on every call; a graph step makes several. */
  private readonly statements: Statements;
  /** Checkpoints and pending writes commit with the storage's other writes of the same turn (this run's and others'). */
  readonly commits: GroupCommit;
  private readonly checkpointSerde: SerializerProtocol;
  private readonly writesSerde: SerializerProtocol;
  private readonly reads: CheckpointReads;

  constructor(db: Db, cipher: FieldCipher = NO_ENCRYPTION, commits = new GroupCommit(db)) {
    super(db);
    this.statements = new Statements(db);
    this.commits = commits;
    this.checkpointSerde = sealedSerde(this.serde, cipher, CHECKPOINT_BLOB.aad);
    this.writesSerde = sealedSerde(this.serde, cipher, WRITE_BLOB.aad);
    this.reads = new CheckpointReads(db, { checkpoint: this.checkpointSerde, writes: this.writesSerde, metadata: this.serde });
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    this.setup();
    const { thread_id: threadId, checkpoint_ns: checkpointNs = "", checkpoint_id: checkpointId } = config.configurable ?? {};
    const row = this.reads.row(threadId as string, checkpointNs as string, checkpointId as string | undefined);
    if (row === undefined) return undefined;
    const tupleConfig = checkpointId
      ? config
      : { configurable: { thread_id: row.thread_id, checkpoint_ns: checkpointNs, checkpoint_id: row.checkpoint_id } };
    if (tupleConfig.configurable?.thread_id === undefined || tupleConfig.configurable?.checkpoint_id === undefined) {
      throw new Error("Missing thread_id or checkpoint_id");
    }
    return this.reads.tuple(row, tupleConfig, checkpointNs as string);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const queued = await this.queuePut(config, checkpoint, metadata, {});
    await queued.committed;
    return queued.value;
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    await (
      await this.queuePutWrites(config, writes, taskId)
    ).committed;
  }

  /** `put`, resolved once the checkpoint is in the commit queue (core's QueueingCheckpointSaver). */
  async queuePut(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    // The whole checkpoint is one row here: which channels changed does not matter.
    _newVersions: ChannelVersions,
    chain?: WriteChain,
  ): Promise<QueuedWrite<RunnableConfig>> {
    this.setup();
    const configurable = config.configurable;
    const threadId = configurable?.thread_id as string | undefined;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const checkpointNs = (configurable?.checkpoint_ns as string | undefined) ?? "";
    const [[type, serializedCheckpoint], [metadataType, serializedMetadata]] = await Promise.all([
      this.checkpointSerde.dumpsTyped(copyCheckpoint(checkpoint)),
      this.serde.dumpsTyped(checkpointMetadata(config, metadata)),
    ]);
    // One type column for both: a sealed checkpoint's type is its metadata's plus the seal mark.
    if (baseType(type) !== metadataType) throw new Error("Failed to serialized checkpoint and metadata to the same type.");
    const insert = this.statements.get(
      `INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const committed = this.commits.write(
      chained(chain, () =>
        insert.run(threadId, checkpointNs, checkpoint.id, configurable?.checkpoint_id, type, serializedCheckpoint, serializedMetadata),
      ),
      chain && ((error) => chain.fail(error)),
    );
    return { value: { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpoint.id } }, committed };
  }

  /** `putWrites`, resolved once the writes are in the commit queue (core's QueueingCheckpointSaver). */
  async queuePutWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, chain?: WriteChain): Promise<QueuedWrite<void>> {
    this.setup();
    const configurable = config.configurable;
    if (!configurable?.thread_id) throw new Error("Missing thread_id field in config.configurable.");
    if (!configurable.checkpoint_id) throw new Error("Missing checkpoint_id field in config.configurable.");
    // Special channels (errors, interrupts, ...) have fixed indexes and replace; ordinary writes are kept once.
    const allSpecial = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const insert = this.statements.get(
      `INSERT ${allSpecial ? "OR REPLACE" : "OR IGNORE"} INTO writes
         (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, serialized] = await this.writesSerde.dumpsTyped(value);
        return [
          configurable.thread_id,
          configurable.checkpoint_ns,
          configurable.checkpoint_id,
          taskId,
          WRITES_IDX_MAP[channel] ?? idx,
          channel,
          type,
          serialized,
        ];
      }),
    );
    const committed = this.commits.write(
      chained(chain, () => {
        for (const row of rows) insert.run(...row);
      }),
      chain && ((error) => chain.fail(error)),
    );
    return { value: undefined, committed };
  }

  /**
   * SqliteSaver matches a filter key through the JSON path `$.<key>`, so a key such as `a.b` named the
   * path a → b and a key such as `""` or `q"k` failed the query ("bad JSON path", a 500 on
   * `POST /threads/{id}/history`). Keys go in as quoted labels and match literally, as they do on the
   * memory and PostgreSQL savers. SQLite ends a path at NUL: a filter with such a key is applied here,
   * over the thread's checkpoints (O(checkpoints of the thread)).
   */
  override async *list(config: RunnableConfig, options?: ListOptions): AsyncGenerator<CheckpointTuple> {
    const entries = Object.entries(options?.filter ?? {}).filter(([, value]) => value !== undefined);
    if (!entries.some(([key]) => key.includes("\0"))) {
      return yield* this.listTuples(config, { ...options, filter: entries.map(([key, value]) => [quotedLabel(key), value]) });
    }
    let left = options?.limit || Infinity;
    for await (const tuple of this.listTuples(config, { ...options, filter: [], limit: undefined })) {
      const metadata = (tuple.metadata ?? {}) as Record<string, unknown>;
      if (!entries.every(([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value))) continue;
      yield tuple;
      if (--left <= 0) return;
    }
  }

  /** SqliteSaver.list, reading through `CheckpointReads`; `filter`: [JSON path label, value]. */
  private async *listTuples(
    config: RunnableConfig,
    options: Omit<NonNullable<ListOptions>, "filter"> & { filter: [string, unknown][] },
  ): AsyncGenerator<CheckpointTuple> {
    this.setup();
    const rows = this.reads.rows({
      threadId: config.configurable?.thread_id,
      checkpointNs: config.configurable?.checkpoint_ns,
      before: options.before?.configurable?.checkpoint_id,
      filter: options.filter,
      limit: options.limit,
    });
    for (const row of rows) {
      const tupleConfig = {
        configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.checkpoint_id },
      };
      yield await this.reads.tuple(row, tupleConfig, row.checkpoint_ns);
    }
  }
}

/** A JSON path label that names `key` literally (SQLite reads `\\` and `\"` inside quotes). */
function quotedLabel(key: string): string {
  return `"${key.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

type RunnableConfig = Parameters<SqliteSaver["put"]>[0];
type ListOptions = Parameters<SqliteSaver["list"]>[1];

interface CheckpointRow {
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Buffer | null;
  metadata: Buffer | string | null;
}

/** SQL over the saver's `checkpoints` / `writes` tables, for thread copy, prune, delete and rollback. */
export class CheckpointTables {
  private readonly s: Statements;
  constructor(db: Db) {
    this.s = new Statements(db);
  }

  deleteThread(threadId: string): void {
    this.s.get("DELETE FROM writes WHERE thread_id = ?").run(threadId);
    this.s.get("DELETE FROM checkpoints WHERE thread_id = ?").run(threadId);
  }

  /**
   * Deletes the checkpoints a run wrote (metadata `run_id`, every namespace) and their pending writes.
   * Walks the thread's checkpoints (their primary key's prefix) and reads each one's metadata: O(checkpoints
   * of the thread), as pruning does; a rollback is rare, and an index of runs' checkpoints cost every run
   * three more pages written (migration 15).
   */
  deleteRun(threadId: string, runId: string): number {
    this.s
      .get(
        `DELETE FROM writes WHERE thread_id = ? AND EXISTS (
           SELECT 1 FROM checkpoints c
           WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns
             AND c.checkpoint_id = writes.checkpoint_id AND ${CHECKPOINT_RUN_ID_EXPR.replaceAll("metadata", "c.metadata")} = ?)`,
      )
      .run(threadId, runId);
    return this.s.get(`DELETE FROM checkpoints WHERE thread_id = ? AND ${CHECKPOINT_RUN_ID_EXPR} = ?`).run(threadId, runId).changes;
  }

  /** Keeps only the latest checkpoint (highest id) of each namespace of the thread; drops the rest and their writes. */
  keepLatest(threadId: string): void {
    this.s
      .get(
        `DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id < (
           SELECT MAX(c2.checkpoint_id) FROM checkpoints c2
           WHERE c2.thread_id = checkpoints.thread_id AND c2.checkpoint_ns = checkpoints.checkpoint_ns)`,
      )
      .run(threadId);
    this.s
      .get(
        `DELETE FROM writes WHERE thread_id = ? AND NOT EXISTS (
           SELECT 1 FROM checkpoints c
           WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns
             AND c.checkpoint_id = writes.checkpoint_id)`,
      )
      .run(threadId);
  }

  /**
   * Copies every checkpoint (all namespaces) and pending write of `from` under `to`, JSON metadata as
   * core's `copiedCheckpointMetadata` has it.
   */
  copyThread(from: string, to: string): void {
    const rows = this.s
      .get(
        `SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
         FROM checkpoints WHERE thread_id = ?`,
      )
      .all(from) as CheckpointRow[];
    const insert = this.s.get(
      `INSERT OR REPLACE INTO checkpoints
         (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const row of rows) {
      insert.run(
        to,
        row.checkpoint_ns,
        row.checkpoint_id,
        row.parent_checkpoint_id,
        row.type,
        row.checkpoint,
        remapMetadata(row, from, to),
      );
    }
    this.s
      .get(
        `INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
         SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id = ?`,
      )
      .run(to, from);
  }
}

function remapMetadata(row: CheckpointRow, from: string, to: string): Buffer | string | null {
  if (row.metadata === null || (row.type !== null && baseType(row.type) !== "json")) return row.metadata;
  const text = typeof row.metadata === "string" ? row.metadata : row.metadata.toString("utf8");
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    return row.metadata;
  }
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return row.metadata;
  const copied = copiedCheckpointMetadata(meta as Record<string, unknown>, from, to);
  if (copied === meta) return row.metadata;
  const out = JSON.stringify(copied);
  return typeof row.metadata === "string" ? out : Buffer.from(out, "utf8");
}
