import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import "./provided-context.js";

export { startEmbeddedPostgres, postgresForScript, cleanStaleServers, alive, postmasterPid, type EmbeddedServer } from "./embedded.js";
export { startRestartablePostgres, type RestartablePostgres } from "./restartable.js";

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
