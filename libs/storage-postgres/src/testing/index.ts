import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import "./provided-context.js";
import { openPostgresStorage, type PostgresStorage } from "../storage.js";

export { startEmbeddedPostgres, cleanStaleServers, type EmbeddedServer } from "./embedded.js";

/** The URL of this test run's server: POSTGRES_URL, or the one the global setup provided. */
export function postgresUrl(): string {
  return process.env.POSTGRES_URL || inject("postgresUrl");
}

function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  url: string;
  schema: string;
  /** Drops the schema with everything in it. */
  drop(): Promise<void>;
}

/**
 * A fresh, uniquely named schema name (not created: `openPostgresStorage` creates it, which is what a
 * fresh-schema test wants). `drop()` removes it if it exists.
 */
export async function createTestSchema(prefix = "t"): Promise<TestSchema> {
  const url = postgresUrl();
  const schema = uniqueName(prefix);
  return {
    url,
    schema,
    drop: () => admin(url, (c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined)),
  };
}

export interface TestDatabase {
  /** URL of the new database. */
  url: string;
  database: string;
  /** Drops the database (terminating its connections). */
  drop(): Promise<void>;
}

/** A fresh database on the test server, for tests that need database-level isolation. */
export async function createTestDatabase(prefix = "t"): Promise<TestDatabase> {
  const base = postgresUrl();
  const database = uniqueName(prefix);
  await admin(base, (c) => c.query(`CREATE DATABASE "${database}"`));
  const url = new URL(base);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    database,
    drop: () => admin(base, (c) => c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).then(() => undefined)),
  };
}

/**
 * Opens storages on fresh schemas and cleans them all up at the end: a ready-made factory for
 * `describeStorageConformance` and for other projects' tests.
 */
export class TestStorages {
  private readonly schemas: TestSchema[] = [];
  private readonly open = new Set<PostgresStorage>();
  private sharedPool: pg.Pool | undefined;

  /**
   * A new storage on a fresh schema. Storages made here share one pool (the caller-supplied-pool path of
   * the driver, and no connection set-up per test); `sibling` and `reopen` always use a new pool.
   */
  async create(): Promise<PostgresStorage> {
    const schema = await createTestSchema();
    this.schemas.push(schema);
    if (!this.sharedPool) {
      this.sharedPool = new pg.Pool({ connectionString: schema.url, max: 20 });
      this.sharedPool.on("error", () => undefined);
    }
    return this.track(await openPostgresStorage({ pool: this.sharedPool, schema: schema.schema }));
  }

  /** A second storage (own pool) on the same schema, as another process would open it. */
  async sibling(storage: PostgresStorage): Promise<PostgresStorage> {
    return this.track(await openPostgresStorage({ connectionString: postgresUrl(), schema: storage.schema }));
  }

  /** Closes `storage` and opens a new one (own pool) on the same schema, as a restart would. */
  async reopen(storage: PostgresStorage): Promise<PostgresStorage> {
    await storage.close();
    this.open.delete(storage);
    return this.sibling(storage);
  }

  /** Closes every storage still open and drops every schema. */
  async cleanup(): Promise<void> {
    await Promise.allSettled([...this.open].map((s) => s.close()));
    this.open.clear();
    await Promise.allSettled(this.schemas.splice(0).map((s) => s.drop()));
    const pool = this.sharedPool;
    this.sharedPool = undefined;
    await pool?.end();
  }

  private track(storage: PostgresStorage): PostgresStorage {
    this.open.add(storage);
    const close = storage.close.bind(storage);
    storage.close = async () => {
      this.open.delete(storage);
      await close();
    };
    return storage;
  }
}

