import { resolve } from "node:path";
import type { Storage } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openPostgresStorage, PostgresStorage } from "@agent-server/storage-postgres";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import pg from "pg";
import { UsageError, type CliOptions } from "./args.js";

export interface OpenedStorage {
  storage: Storage;
  /** For the start-up banner: "sqlite (/abs/agent-server.sqlite)", "postgres (host/db, schema public)". */
  description: string;
  /** Migrations applied by this open (versions, as the driver names them). */
  applied: string[];
}

export const SQLITE_FILE = "agent-server.sqlite";

/** Where the SQLite file lives: --data-dir (against the process cwd), else beside langgraph.json. */
export function sqlitePath(options: CliOptions, projectDir: string): string {
  const dir = options.dataDir !== undefined ? resolve(options.dataDir) : resolve(projectDir, ".agent-server");
  return resolve(dir, SQLITE_FILE);
}

/**
 * Opens the storage the flags select. Opening migrates (every driver applies pending migrations when it
 * opens), and the versions applied are reported so `migrate` can print them.
 */
export async function openStorage(options: CliOptions, projectDir: string): Promise<OpenedStorage> {
  switch (options.storage) {
    case "memory":
      return {
        storage: createMemoryStorage(),
        description: options.snapshotSave && options.snapshot !== undefined
          ? `memory (saved to ${resolve(options.snapshot)} on shutdown)`
          : "memory (nothing is kept after exit)",
        applied: [],
      };
    case "sqlite": {
      const path = sqlitePath(options, projectDir);
      const startedAt = new Date().toISOString();
      const storage = await openSqliteStorage({ path });
      // The SQLite driver migrates inside its open and does not return the versions: the rows it wrote
      // during this open are the ones applied now.
      const rows = storage.db
        .prepare("SELECT version, name FROM schema_migrations WHERE applied_at >= ? ORDER BY version")
        .all(startedAt) as { version: number; name: string }[];
      return { storage, description: `sqlite (${path})`, applied: rows.map((r) => `${r.version}_${r.name}`) };
    }
    case "postgres": {
      const url = options.databaseUrl;
      if (!url) throw new UsageError("--storage postgres needs --database-url or the POSTGRES_URL environment variable");
      // Migrating through the driver's own `migrate()` (what openPostgresStorage does) returns the
      // versions applied; a second open afterwards finds nothing left to apply.
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      pool.on("error", () => undefined);
      let applied: string[];
      try {
        applied = await new PostgresStorage(pool, options.databaseSchema, false).migrate();
      } finally {
        await pool.end();
      }
      const storage = await openPostgresStorage({ connectionString: url, schema: options.databaseSchema });
      return { storage, description: `postgres (${redact(url)}, schema ${options.databaseSchema})`, applied };
    }
  }
}

/** The URL without its password, for logs. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)";
  }
}
