import { NO_ENCRYPTION, RepoBackedStore, type FieldCipher, type Storage, type TruncateFlags } from "@agent-server/core";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { PostgresAssistantRepo } from "./assistants.js";
import { checkpointSql, RunAwarePostgresSaver } from "./checkpointer.js";
import { guardPool, poolOptions } from "./connections.js";
import { PostgresCronRepo } from "./crons.js";
import { saverPool, statementNames, Tables, transaction } from "./db.js";
import { PostgresDeliveryRepo } from "./deliveries.js";
import { PostgresEncryptionRepo } from "./encryption.js";
import { PostgresEventRepo } from "./events.js";
import { applyMigrations, setupCheckpointer } from "./migrate.js";
import { PostgresPresence } from "./presence.js";
import { PostgresPushConfigRepo } from "./push-configs.js";
import { PostgresRunRepo } from "./runs.js";
import { Sealer } from "./sealing.js";
import { PostgresSignalBus } from "./signals.js";
import { PostgresStoreRepo } from "./store.js";
import { detectVectorSearch } from "./store-vectors.js";
import { PostgresThreadLock } from "./thread-lock.js";
import { PostgresThreadRepo } from "./threads.js";

export interface PostgresStorageOptions {
  /** Used when no `pool` is given; the driver then owns the pool and ends it on `close()`. */
  connectionString?: string;
  /** Schema holding every table (created if missing). Default "public". */
  schema?: string;
  /** An existing pool (at least 2 connections). The driver does not end it on `close()`. */
  pool?: pg.Pool;
  /** Connections of the pool the driver makes when no `pool` is given (pg's default: 10). */
  poolSize?: number;
  /**
   * Seals what users send before it is written, and opens it when read (sealing.ts lists the columns).
   * Default NO_ENCRYPTION: nothing is sealed, and a sealed value read back says which key it needs.
   */
  cipher?: FieldCipher;
  /**
   * False: statements are sent unnamed, parsed and planned on every call, for a pooler that hands one
   * session's prepared statements to another (PgBouncer in transaction mode before 1.21). Default true.
   * Process-wide: once false, no driver in this process names its statements.
   */
  preparedStatements?: boolean;
}

export class PostgresStorage implements Storage {
  readonly kind = "postgres";
  readonly assistants: PostgresAssistantRepo;
  readonly threads: PostgresThreadRepo;
  readonly runs: PostgresRunRepo;
  readonly store: PostgresStoreRepo;
  readonly crons: PostgresCronRepo;
  readonly deliveries: PostgresDeliveryRepo;
  readonly events: PostgresEventRepo;
  readonly pushConfigs: PostgresPushConfigRepo;
  readonly encryption: PostgresEncryptionRepo;
  /** LISTEN/NOTIFY on a connection of its own (opened at the first subscription). */
  readonly signals: PostgresSignalBus;
  readonly checkpointer: RunAwarePostgresSaver;
  readonly langgraphStore: BaseStore;
  readonly schema: string;
  private readonly tables: Tables;
  readonly presence: PostgresPresence;
  private readonly threadLock: PostgresThreadLock;
  private closed = false;

  /** Use `openPostgresStorage`, which also applies migrations and sets up the checkpointer. */
  constructor(
    readonly pool: pg.Pool,
    schema: string,
    private readonly ownsPool: boolean,
    readonly cipher: FieldCipher = NO_ENCRYPTION,
  ) {
    this.schema = schema;
    this.tables = new Tables(schema);
    guardPool(pool);
    const seal = new Sealer(cipher);
    // First: the thread repo reads the values a thread's pointer names through it.
    this.checkpointer = new RunAwarePostgresSaver(saverPool(pool), schema, seal);
    this.assistants = new PostgresAssistantRepo(pool, this.tables, seal);
    this.threads = new PostgresThreadRepo(pool, this.tables, this.checkpointer, seal);
    this.runs = new PostgresRunRepo(pool, this.tables, seal, this.checkpointer.batches);
    this.store = new PostgresStoreRepo(pool, this.tables, seal);
    this.crons = new PostgresCronRepo(pool, this.tables, seal);
    this.deliveries = new PostgresDeliveryRepo(pool, this.tables, seal);
    this.events = new PostgresEventRepo(pool, this.tables, seal);
    this.pushConfigs = new PostgresPushConfigRepo(pool, this.tables, seal);
    this.encryption = new PostgresEncryptionRepo(pool, this.tables, seal);
    this.signals = new PostgresSignalBus(pool, schema);
    this.langgraphStore = new RepoBackedStore(this.store);
    this.threadLock = new PostgresThreadLock(pool, schema);
    this.presence = new PostgresPresence(pool, schema);
  }

  withThreadLock<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    return this.threadLock.run(threadId, fn);
  }

  /** Applies pending migrations and the checkpointer's setup (both safe to run from several processes at once). */
  async migrate(): Promise<string[]> {
    const applied = await applyMigrations(this.pool, this.schema);
    await setupCheckpointer(this.pool, this.schema, this.checkpointer);
    return applied;
  }

  async truncate(flags: TruncateFlags): Promise<void> {
    const t = this.tables;
    const statements: string[] = [];
    // Runs with their results and push configs (both reference runs), their events and webhook outbox.
    if (flags.runs || flags.threads) {
      statements.push(`TRUNCATE ${t.runResults}, ${t.pushConfigs}, ${t.runs}, ${t.runEvents}, ${t.runEventCounters}, ${t.deliveries}`);
    }
    if (flags.threads) statements.push(`TRUNCATE ${t.threads} CASCADE`);
    if (flags.assistants) statements.push(`TRUNCATE ${t.assistantVersions}, ${t.assistants}, ${t.crons}`);
    if (flags.store) statements.push(`TRUNCATE ${t.storeItems}, ${t.storeVectors}`);
    if (flags.checkpointer) statements.push(checkpointSql(this.schema).truncate);
    if (!statements.length) return;
    await transaction(this.pool, async (client) => {
      for (const sql of statements) await client.query(sql);
    });
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error("the PostgreSQL storage is closed");
    await this.pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.presence.close(), this.signals.close()]);
    if (this.ownsPool) await this.pool.end();
  }
}

/** Opens (and migrates) a Postgres storage. */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const schema = options.schema ?? "public";
  new Tables(schema); // validates the name before anything connects
  if (!options.pool && !options.connectionString) throw new Error("openPostgresStorage needs a connectionString or a pool");
  if (options.preparedStatements === false) statementNames.disable();
  const ownsPool = !options.pool;
  const pool = options.pool ?? new pg.Pool(poolOptions(options.connectionString!, options.poolSize));
  const storage = new PostgresStorage(pool, schema, ownsPool, options.cipher);
  try {
    await storage.migrate();
    storage.store.vectorMethod = await detectVectorSearch(pool);
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
  return storage;
}
