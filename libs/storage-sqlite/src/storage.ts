import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { LocalSignalBus, NO_ENCRYPTION, RepoBackedStore, type FieldCipher, type Storage, type TruncateFlags } from "@agent-server/core";
import { SqliteAssistantRepo } from "./assistants.js";
import { AgentSqliteSaver, CheckpointTables } from "./checkpointer.js";
import { SqliteCronRepo } from "./crons.js";
import { openDatabase, type Db, type Stmt } from "./db.js";
import { SqliteDeliveryRepo } from "./deliveries.js";
import { SqliteEncryptionRepo } from "./encryption.js";
import { SqliteEventRepo } from "./events.js";
import { GroupCommit } from "./group-commit.js";
import { applyMigrations } from "./migrations.js";
import { SqlitePushConfigRepo } from "./push-configs.js";
import { SqliteRunRepo } from "./runs.js";
import { tableCodecs } from "./sealing.js";
import { registerFunctions } from "./sql-functions.js";
import { SqliteStoreRepo } from "./store.js";
import { loadSqliteVec, registerVectorFunctions, type SqliteVectorSearch } from "./store-vectors.js";
import { SqliteThreadLock } from "./thread-lock.js";
import { SqliteThreadRepo } from "./threads.js";
import { isDatabaseFile, WalCheckpointer, type WalCheckpointerOptions } from "./wal-checkpointer.js";

/**
 * The SQLite driver: every repository and the LangGraph SqliteSaver over one better-sqlite3 connection
 * to one file. Several instances (threads of one process, or processes) may open the same file; writers
 * serialize through SQLite's lock (BEGIN IMMEDIATE + busy_timeout).
 */
export class SqliteStorage implements Storage {
  readonly kind = "sqlite";
  readonly assistants: SqliteAssistantRepo;
  readonly threads: SqliteThreadRepo;
  readonly runs: SqliteRunRepo;
  readonly store: SqliteStoreRepo;
  readonly crons: SqliteCronRepo;
  readonly deliveries: SqliteDeliveryRepo;
  readonly events: SqliteEventRepo;
  readonly pushConfigs: SqlitePushConfigRepo;
  readonly encryption: SqliteEncryptionRepo;
  /**
   * Within this driver object only: SQLite has nothing to carry a signal to another connection, so
   * processes sharing one file keep polling (the queue, run ends, cancels at lease renewal).
   */
  readonly signals = new LocalSignalBus("process");
  readonly checkpointer: AgentSqliteSaver;
  readonly langgraphStore: RepoBackedStore;
  /** Copies the WAL into the database off the event loop (wal-checkpointer.ts); none for an in-memory database. */
  readonly walCheckpointer: WalCheckpointer | undefined;
  private readonly threadLock: SqliteThreadLock;
  /** The writes of runs and checkpoints, committed a turn at a time (group-commit.ts). */
  private readonly commits: GroupCommit;
  private closed = false;
  private pingStatement: Stmt | undefined;

  /** Use `openSqliteStorage`; the constructor expects a connection whose migrations are applied. */
  constructor(
    readonly db: Db,
    readonly path: string,
    options: SqliteStorageOptions = {},
  ) {
    // What users send is sealed (and filters open it) by the cipher: sealing.ts says where.
    const cipher = options.cipher ?? NO_ENCRYPTION;
    const codecs = tableCodecs(cipher);
    registerFunctions(db, cipher);
    const checkpoints = new CheckpointTables(db);
    this.commits = new GroupCommit(db);
    this.checkpointer = new AgentSqliteSaver(db, cipher, this.commits);
    this.assistants = new SqliteAssistantRepo(db, codecs);
    this.threads = new SqliteThreadRepo(db, checkpoints, this.checkpointer, codecs);
    this.runs = new SqliteRunRepo(db, checkpoints, codecs, this.commits);
    registerVectorFunctions(db);
    // sqlite-vec unless asked for the JavaScript scan, or when its native library does not load here.
    const vectorSearch = options.vectorSearch !== "exact" && loadSqliteVec(db) ? "sqlite-vec" : "exact";
    this.store = new SqliteStoreRepo(db, codecs, vectorSearch);
    this.crons = new SqliteCronRepo(db, codecs);
    this.deliveries = new SqliteDeliveryRepo(db, codecs);
    this.events = new SqliteEventRepo(db, codecs);
    this.pushConfigs = new SqlitePushConfigRepo(db, codecs);
    this.encryption = new SqliteEncryptionRepo(db, cipher);
    this.langgraphStore = new RepoBackedStore(this.store);
    this.threadLock = new SqliteThreadLock(db);
    const walCheckpoints = options.walCheckpoints ?? "background";
    this.walCheckpointer =
      isDatabaseFile(path) && walCheckpoints !== "inline"
        ? new WalCheckpointer(db, path, walCheckpoints === "background" ? {} : walCheckpoints)
        : undefined;
  }

  withThreadLock<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    return this.threadLock.run(threadId, fn);
  }

  async truncate(flags: TruncateFlags): Promise<void> {
    const db = this.db;
    db.transaction(() => {
      if (flags.runs || flags.threads) {
        db.exec("DELETE FROM events");
        db.exec("DELETE FROM runs"); // run_results and push_configs cascade
      }
      if (flags.threads) db.exec("DELETE FROM threads");
      if (flags.assistants) {
        // As the official server does: system assistants (one per graph, re-created at start-up) stay.
        db.exec(`DELETE FROM assistants WHERE json_extract(metadata, '$.created_by') IS NOT 'system'`);
      }
      if (flags.store) db.exec("DELETE FROM store_items");
      if (flags.checkpointer) {
        db.exec("DELETE FROM writes");
        db.exec("DELETE FROM checkpoints");
      }
    }).immediate();
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error("the SQLite storage is closed");
    (this.pingStatement ??= this.db.prepare("SELECT 1")).get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.walCheckpointer?.close();
      this.commits.flush();
      try {
        this.db.pragma("optimize"); // refreshes planner statistics where they are stale; cheap
      } catch {
        // Maintenance only (a full disk refuses its writes): the close goes on.
      }
    } finally {
      this.db.close();
    }
  }
}

export interface SqliteStorageOptions {
  /**
   * How semantic store searches score vectors (see store-vectors.ts): "sqlite-vec" (default; falls back
   * to "exact" when the extension cannot load) or "exact", the JavaScript scan.
   */
  vectorSearch?: SqliteVectorSearch;
  /**
   * Seals what users send (sealing.ts lists the columns; checkpoints and writes through the saver) and
   * opens it on read; default NO_ENCRYPTION. Values written before a key was set still read.
   */
  cipher?: FieldCipher;
  /**
   * Who copies the WAL back into the database: "background" (default), a worker thread with its own
   * connection (wal-checkpointer.ts), or "inline", SQLite's automatic checkpoint inside the commit that
   * crosses 4,000 pages. Options tune the worker (tests).
   */
  walCheckpoints?: "background" | "inline" | WalCheckpointerOptions;
}

/** Opens (creating if needed) the database file, applies pending migrations and returns the driver. */
export async function openSqliteStorage({ path, ...options }: { path: string } & SqliteStorageOptions): Promise<SqliteStorage> {
  if (isDatabaseFile(path)) mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase(path);
  try {
    applyMigrations(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteStorage(db, path, options);
}
