import type { FieldCipher } from "@agent-server/core";
import pg from "pg";
import { createTestSchema, postgresUrl, type TestSchema } from "@agent-server/testing/postgres";
import { openPostgresStorage, type PostgresStorage } from "../src/storage.js";

/**
 * Opens storages on fresh schemas and cleans them all up at the end: a ready-made factory for
 * `describeStorageConformance` and for this driver's other tests. With `cipher`, every storage it opens
 * (siblings and reopens too) seals with it.
 */
export class TestStorages {
  private readonly schemas: TestSchema[] = [];
  private readonly open = new Set<PostgresStorage>();
  private sharedPool: pg.Pool | undefined;

  constructor(private readonly cipher?: FieldCipher) {}

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
    return this.track(await openPostgresStorage({ pool: this.sharedPool, schema: schema.schema, cipher: this.cipher }));
  }

  /** A second storage (own pool) on the same schema, as another process would open it. */
  async sibling(storage: PostgresStorage): Promise<PostgresStorage> {
    return this.track(await openPostgresStorage({ connectionString: postgresUrl(), schema: storage.schema, cipher: this.cipher }));
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
