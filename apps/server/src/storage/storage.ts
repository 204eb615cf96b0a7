import { resolve } from "node:path";
import type { FieldCipher, Storage } from "@agent-server/core";
import { UsageError, type CliOptions } from "../cli/index.js";
import { openCustomStorage } from "./custom-storage.js";
import { checkStorageKeys, loadEncryption, type Encryption, type ProjectEncryption } from "./encryption.js";

export interface OpenedStorage {
  storage: Storage;
  /** Which driver was opened: the flag's, or "custom" from langgraph.json `storage.path` too. */
  kind: CliOptions["storage"];
  /** For the start-up banner: "sqlite (/abs/agent-server.sqlite)", "postgres (host/db, schema public)". */
  description: string;
  /** Migrations applied by this open (versions, as the driver names them). */
  applied: string[];
  /** What seals user content in it (docs/security.md); snapshots seal with it too. */
  encryption: Encryption;
}

export const SQLITE_FILE = "agent-server.sqlite";

/** The data folder: --data-dir (against the process cwd), else `.agent-server` beside langgraph.json. */
export function dataDir(options: CliOptions, projectDir: string): string {
  return options.dataDir !== undefined ? resolve(options.dataDir) : resolve(projectDir, ".agent-server");
}

/** Where the SQLite file lives: in the data folder. */
export function sqlitePath(options: CliOptions, projectDir: string): string {
  return resolve(dataDir(options, projectDir), SQLITE_FILE);
}

/** langgraph.json's `storage` key: `{ "path": "./driver.ts:export" }` names a custom driver module. */
export interface ProjectStorage {
  path?: string;
}

/** What of langgraph.json opening the storage reads: a custom driver, a custom encryptor. */
export interface ProjectStorageSettings {
  storage?: ProjectStorage;
  encryption?: ProjectEncryption;
}

/**
 * Opens the storage the flags select, or else langgraph.json's `storage.path`. Opening migrates (every
 * built-in driver applies pending migrations when it opens), and the versions applied are reported so
 * `migrate` can print them. Only the selected driver is loaded: a SQLite server does not load pg and the
 * PostgreSQL checkpointer, nor the other way round (start-up time).
 */
export async function openStorage(
  options: CliOptions,
  projectDir: string,
  project?: ProjectStorageSettings,
  warn: (line: string) => void = (line) => process.stderr.write(`agent-server: ${line}\n`),
): Promise<OpenedStorage> {
  // Encryption at rest (docs/security.md): read before the driver opens, checked once it has.
  const encryption = await loadEncryption(project?.encryption, projectDir);
  const opened = { ...(await openDriver(options, projectDir, project?.storage, warn, encryption.cipher)), encryption };
  try {
    await checkStorageKeys(opened.storage, encryption);
  } catch (error) {
    await opened.storage.close().catch(() => undefined);
    throw error;
  }
  return opened;
}

async function openDriver(
  options: CliOptions,
  projectDir: string,
  projectStorage: ProjectStorage | undefined,
  warn: (line: string) => void,
  cipher: FieldCipher,
): Promise<Omit<OpenedStorage, "encryption">> {
  const fromProject = !options.storageGiven && projectStorage?.path ? projectStorage.path : undefined;
  if (options.storage === "custom" || fromProject !== undefined) {
    const [spec, base, origin] =
      fromProject !== undefined
        ? [fromProject, projectDir, "langgraph.json storage.path" as const]
        : [options.storageModule!, process.cwd(), "--storage" as const];
    const storage = await openCustomStorage(
      spec,
      base,
      { projectDir: resolve(projectDir), dataDir: dataDir(options, projectDir), ...(cipher.sealing ? { cipher } : {}) },
      origin,
    );
    return { storage, kind: "custom", description: `custom driver "${storage.kind}" (${spec})`, applied: [] };
  }
  switch (options.storage) {
    case "memory": {
      const { createMemoryStorage } = await import("@agent-server/storage-memory");
      return {
        storage: createMemoryStorage(),
        kind: "memory",
        description:
          options.snapshotSave && options.snapshot !== undefined
            ? `memory (saved to ${resolve(options.snapshot)} on shutdown)`
            : "memory (nothing is kept after exit)",
        applied: [],
      };
    }
    case "sqlite": {
      const { openSqliteStorage } = await import("@agent-server/storage-sqlite");
      const path = sqlitePath(options, projectDir);
      const startedAt = new Date().toISOString();
      const storage = await openSqliteStorage({ path, cipher });
      // The SQLite driver migrates inside its open and does not return the versions: the rows it wrote
      // during this open are the ones applied now.
      const rows = storage.db
        .prepare("SELECT version, name FROM schema_migrations WHERE applied_at >= ? ORDER BY version")
        .all(startedAt) as { version: number; name: string }[];
      return { storage, kind: "sqlite", description: `sqlite (${path})`, applied: rows.map((r) => `${r.version}_${r.name}`) };
    }
    case "postgres": {
      const url = options.databaseUrl;
      if (!url)
        throw new UsageError(
          "--storage postgres needs --database-url or the POSTGRES_URL (or DATABASE_URI, POSTGRES_URI) environment variable",
        );
      const [{ openPostgresStorage, PostgresStorage }, { default: pg }] = await Promise.all([
        import("@agent-server/storage-postgres"),
        import("pg"),
      ]);
      // Migrating through the driver's own `migrate()` (what openPostgresStorage does) returns the
      // versions applied; a second open afterwards finds nothing left to apply.
      // The first connection waits for a database that is not up yet (started beside the server, restarting).
      const applied = await whenReachable(
        async () => {
          const pool = new pg.Pool({ connectionString: url, max: 2 });
          pool.on("error", () => undefined);
          try {
            return await new PostgresStorage(pool, options.databaseSchema, false).migrate();
          } finally {
            await pool.end();
          }
        },
        { where: postgresAddress(url), waitSeconds: options.databaseWaitSeconds, warn },
      );
      const storage = await openPostgresStorage({
        connectionString: url,
        schema: options.databaseSchema,
        poolSize: postgresPoolSize(options.workers),
        cipher,
      });
      return { storage, kind: "postgres", description: `postgres (${redact(url)}, schema ${options.databaseSchema})`, applied };
    }
  }
}

/**
 * Connections for `workers` executing runs: each run's checkpointer transaction and settlement hold one at
 * a time, and beside them requests, thread-lock sections (at most half the pool) and the background loops
 * need theirs; with pg's default 10, ten busy workers queue for connections in the pool.
 */
export function postgresPoolSize(workers: number): number {
  return Math.max(10, 2 * workers + 4);
}

/** PostgreSQL never became reachable within --database-wait: main reports the message alone and exits 2. */
export class DatabaseUnreachableError extends Error {
  override name = "DatabaseUnreachableError";
}

/**
 * Runs `connect` until it does not fail for an unreachable database (`storageFault` kind "unreachable":
 * connection refused, host not found, the server starting up or shutting down), waiting 1, 2, 4, 5, 5 ... s
 * between attempts and logging each wait, for at most `waitSeconds`; any other error (a wrong password, a
 * missing database) is thrown at once.
 */
async function whenReachable<T>(
  connect: () => Promise<T>,
  options: { where: string; waitSeconds: number; warn: (line: string) => void },
): Promise<T> {
  const { storageFault } = await import("@agent-server/core");
  const giveUpAt = Date.now() + options.waitSeconds * 1000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await connect();
    } catch (error) {
      const fault = storageFault(error);
      if (fault?.kind !== "unreachable") throw error;
      const waitMs = Math.min(1000 * 2 ** (attempt - 1), 5000, giveUpAt - Date.now());
      if (waitMs <= 0) {
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${options.where} is not reachable (${fault.code}): gave up after ${attempt} attempt(s) in ${options.waitSeconds} s ` +
            "(--database-wait, AGENT_SERVER_DATABASE_WAIT)",
          { cause: error },
        );
      }
      options.warn(
        `PostgreSQL at ${options.where} is not reachable (${fault.code}); retrying in ${(waitMs / 1000).toFixed(1)} s ` +
          `(attempt ${attempt + 1}, giving up after ${options.waitSeconds} s)`,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** host:port/database of a PostgreSQL URL, for messages (no user or password). */
function postgresAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}${parsed.pathname || "/"}`;
  } catch {
    return "(unparsable URL)";
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
