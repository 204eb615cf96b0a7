import Database from "better-sqlite3";
import { tracingEnabled } from "@agent-server/core";
import type { Db, Stmt } from "./db-types.js";
import { traceStatements } from "./traced-statements.js";

export type { Db, Stmt } from "./db-types.js";

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
 *   On a database file it is a backstop once the storage's checkpoint worker runs (wal-checkpointer.ts).
 */
export function openDatabase(path: string): Db {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  if (tracingEnabled()) traceStatements(db);
  return db;
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

/** Reads a table's JSON columns: plain `parseJson`, or a table's codec that opens its sealed columns (sealing.ts). */
export interface RowCodec {
  value<V>(column: string, text: string | null | undefined, fallback: V): V;
}

const PLAIN: RowCodec = { value: (_column, text, fallback) => parseJson(text, fallback) };

/**
 * A table row as its object: the JSON columns (`json`: column -> what NULL reads as) parsed (and
 * opened, through the table's codec), every other column as stored. Each table's mapping is one call
 * of it, so database text becomes objects in one place, as PostgreSQL's per-query type parsers do it there.
 */
export function fromRow<T>(row: object, json: Record<string, unknown>, codec: RowCodec = PLAIN): T {
  const out: Record<string, unknown> = { ...row };
  for (const [column, fallback] of Object.entries(json)) out[column] = codec.value(column, out[column] as string | null, fallback);
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
