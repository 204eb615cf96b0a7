import Database from "better-sqlite3";
import { jsonContains, matchesAuthFilter, matchesStoreFilter, storeAuthSubject, tracingEnabled } from "@agent-server/core";
import { traceStatements } from "./traced-statements.js";

export type Db = Database.Database;
export type Stmt = Database.Statement;

/** WAL pages written between automatic checkpoints (see openDatabase). */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;

/** How long a connection waits for another connection's write lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens the file and applies the connection PRAGMAs (see README):
 * - busy_timeout first, so the WAL switch itself waits for a lock held by another process;
 * - journal_mode=WAL: readers never block the single writer, and a crash never leaves a torn page;
 * - synchronous=NORMAL: with WAL, a committed transaction survives a process crash (only an OS crash
 *   or power loss can lose the last commits; the file stays consistent either way);
 * - foreign_keys=ON: run results cascade with their runs, runs with their threads;
 * - wal_autocheckpoint=4000 pages (16 MiB of WAL at 4 KiB pages, SQLite's default is 1000): a page a run
 *   rewrites many times (a runs index, the thread row) is copied into the database once per checkpoint,
 *   so fewer, larger checkpoints read and write less per run (6 % less server CPU per A2A SendMessage).
 */
export function openDatabase(path: string): Db {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  registerFunctions(db);
  if (tracingEnabled()) traceStatements(db);
  return db;
}

/**
 * Core's matching rules as SQL functions, so metadata / auth / store filters run inside the query and
 * LIMIT/OFFSET count only matching rows. They parse the row's JSON per call: a search that uses them
 * is O(rows the other predicates leave), not index-assisted (see README).
 */
function registerFunctions(db: Db): void {
  const opts = { deterministic: true, varargs: false } as const;
  db.function("as_json_contains", opts, (haystack: unknown, needle: unknown) =>
    jsonContains(parseOrNull(haystack), parseOrNull(needle)) ? 1 : 0,
  );
  db.function("as_auth_match", opts, (metadata: unknown, filter: unknown) =>
    matchesAuthFilter(parseOrNull(metadata) as Record<string, unknown> | null, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0,
  );
  db.function("as_store_auth_match", opts, (namespace: unknown, key: unknown, value: unknown, filter: unknown) => {
    const labels = typeof namespace === "string" && namespace !== "" ? namespace.split(".") : [];
    const subject = storeAuthSubject(
      labels,
      typeof key === "string" ? key : undefined,
      parseOrNull(value) as Record<string, unknown> | null,
    );
    return matchesAuthFilter(subject, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0;
  });
  db.function("as_store_match", opts, (value: unknown, filter: unknown) =>
    matchesStoreFilter((parseOrNull(value) ?? {}) as Record<string, unknown>, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0,
  );
}

function parseOrNull(text: unknown): unknown {
  return parseJson(typeof text === "string" || text == null ? text : Buffer.from(text as Uint8Array).toString("utf8"), null);
}

/** Statements prepared once per repo instance, keyed by SQL text (dynamic searches have a few shapes). */
export class Statements {
  private readonly cache = new Map<string, Stmt>();
  constructor(readonly db: Db) {}

  get(sql: string): Stmt {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

/**
 * The first row a writing statement with RETURNING gives, once its write has committed; undefined for none.
 * better-sqlite3's `get()` steps to the first row and ignores what resetting the statement returns. Out of
 * a transaction that reset is where SQLite commits, so a commit refused there (SQLITE_FULL or an I/O error
 * appending to the WAL) would be rolled back while `get()` still returned the row as written: a thread
 * "created" that was never stored. `all()` steps the statement to its end and throws the commit's error.
 * Every INSERT/UPDATE/DELETE ... RETURNING of this driver is read through here, in a transaction or not.
 */
export function returningRow<T>(stmt: Stmt, ...params: unknown[]): T | undefined {
  return stmt.all(...params)[0] as T | undefined;
}

/** Parses a JSON column (NULL reads as a copy of `fallback`); a fresh copy on every read. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return structuredClone(fallback);
  return JSON.parse(text) as T;
}

/**
 * A table row as its object: the JSON columns (`json`: column -> what NULL reads as) parsed, every other
 * column as stored. Each table's mapping is one call of it, so database text becomes objects in one
 * place, as PostgreSQL's per-query type parsers do it there.
 */
export function fromRow<T>(row: object, json: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...row };
  for (const [column, fallback] of Object.entries(json)) out[column] = parseJson(out[column] as string | null, fallback);
  return out as T;
}

/** Clamps a limit/offset to a non-negative integer. */
export function intOr(value: number | undefined, fallback: number): number {
  if (value === undefined || value === null || !Number.isFinite(value)) return fallback;
  return Math.max(0, Math.trunc(value));
}

export function sortDir(order: string | undefined, fallback: "ASC" | "DESC" = "DESC"): "ASC" | "DESC" {
  if (order === "asc") return "ASC";
  if (order === "desc") return "DESC";
  return fallback;
}

/** True for SQLite's UNIQUE / PRIMARY KEY constraint violations. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
