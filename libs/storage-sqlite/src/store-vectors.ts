import { createRequire } from "node:module";
import type { StoreVector } from "@agent-server/core";
import type { Db, Stmt } from "./db.js";

/**
 * How a query's score is computed over `store_vectors.embedding` (float32 BLOBs):
 * - `sqlite-vec`: the extension's `vec_distance_cosine`, in C;
 * - `exact`: `as_vec_dot`, a JavaScript function (stored vectors and queries are unit vectors, so the
 *   dot product is the cosine).
 * Both are exact scans of the vectors of the items the other conditions leave: O(items under the
 * namespace prefix × dims), with SQLite's sorter keeping only `offset + limit` rows for the ORDER BY.
 * sqlite-vec's `vec0` approximate tables are not used: the prefix, value and auth filters must apply
 * before ranking, or a filtered query would miss its best matches.
 */
export type SqliteVectorSearch = "sqlite-vec" | "exact";

const require = createRequire(import.meta.url);

/** Loads sqlite-vec into the connection; false when its native library cannot load on this machine. */
export function loadSqliteVec(db: Db): boolean {
  try {
    (require("sqlite-vec") as { load(db: Db): void }).load(db);
    return true;
  } catch {
    return false;
  }
}

/** The JavaScript exact scan's score: the dot product of two float32 BLOBs. */
export function registerVectorFunctions(db: Db): void {
  db.function("as_vec_dot", { deterministic: true, varargs: false }, (a: unknown, b: unknown) => {
    if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array)) return null;
    const x = floats(a);
    const y = floats(b);
    const n = Math.min(x.length, y.length);
    let dot = 0;
    for (let i = 0; i < n; i++) dot += x[i]! * y[i]!;
    return dot;
  });
}

function floats(bytes: Uint8Array): Float32Array {
  // better-sqlite3 hands BLOBs as Buffers that may not be 4-byte aligned in their pool.
  return bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2)
    : new Float32Array(bytes.slice().buffer, 0, bytes.byteLength >> 2);
}

/** A vector as little-endian float32 (sqlite-vec's BLOB format). */
export function vectorBlob(vector: number[]): Buffer {
  return Buffer.from(new Float32Array(vector).buffer);
}

/** The SQL score of `store_vectors v` against the query blob parameter `?`, in [-1, 1]; 0 for a zero vector. */
export function scoreSql(search: SqliteVectorSearch): string {
  return search === "sqlite-vec" ? "COALESCE(1.0 - vec_distance_cosine(v.embedding, ?), 0.0)" : "COALESCE(as_vec_dot(v.embedding, ?), 0.0)";
}

/** The vectors table's statements: replace an item's vectors, and the recorded index identity. */
export class SqliteVectorRows {
  private readonly deleteItem: Stmt;
  private readonly insert: Stmt;
  private readonly identity: Stmt;
  private readonly saveIdentity: Stmt;
  private readonly forgetIdentity: Stmt;

  constructor(db: Db) {
    this.deleteItem = db.prepare("DELETE FROM store_vectors WHERE namespace = ? AND key = ?");
    this.insert = db.prepare("INSERT INTO store_vectors (namespace, key, field, embedding) VALUES (?, ?, ?, ?)");
    this.identity = db.prepare("SELECT identity FROM store_index WHERE id = 1");
    this.saveIdentity = db.prepare(
      "INSERT INTO store_index (id, identity) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET identity = excluded.identity",
    );
    this.forgetIdentity = db.prepare("DELETE FROM store_index WHERE id = 1");
  }

  /** Inside the caller's transaction: the item's old vectors go, the new ones (if any) come. */
  replace(namespace: string, key: string, vectors: StoreVector[]): void {
    this.deleteItem.run(namespace, key);
    for (const v of vectors) this.insert.run(namespace, key, v.field, vectorBlob(v.vector));
  }

  getIdentity(): string | null {
    return (this.identity.get() as { identity: string } | undefined)?.identity ?? null;
  }

  setIdentity(identity: string | null): void {
    if (identity === null) this.forgetIdentity.run();
    else this.saveIdentity.run(identity);
  }
}
