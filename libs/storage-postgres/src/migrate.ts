import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { quoteSchema } from "./db.js";
import type { Migration } from "./migrations-compiler.js";
import { MIGRATIONS } from "./migrations.generated.js";

/** Advisory-lock key of one schema's migrations (advisory locks are database-wide, so the schema is in it). */
const lockKey = (schema: string, what: string) => `agent-server:${what}:${schema}`;

/**
 * Applies the pending migrations of `schema` in ONE transaction that first takes
 * `pg_advisory_xact_lock(hashtext('agent-server:migrate:<schema>'))`: processes opening the same schema
 * at once queue on the lock, and each sees what the previous one committed, so every migration runs and
 * is recorded in `schema_migrations` exactly once. Returns the versions this call applied.
 */
export async function applyMigrations(pool: pg.Pool, schema: string, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const s = quoteSchema(schema);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [lockKey(schema, "migrate")]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`SET LOCAL search_path TO ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      version    text PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: string }>(`SELECT version FROM ${s}.schema_migrations`);
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      applied.push(migration.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * `PostgresSaver.setup()` runs its own unlocked migrations on a pool connection of its choosing (two
 * processes starting at once can both try to create its tables and record its version 0). We serialize
 * it under a session advisory lock held on a separate connection, so the pool needs at least 2 clients.
 */
export async function setupCheckpointer(pool: pg.Pool, schema: string, saver: PostgresSaver): Promise<void> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [lockKey(schema, "checkpointer")]);
    try {
      await saver.setup();
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lockKey(schema, "checkpointer")]).catch(() => {
        broken = true;
      });
    }
  } finally {
    // A connection that may still hold the session lock must not go back to the pool.
    client.release(broken || undefined);
  }
}
