import {
  matchesAuthFilter,
  nowIso,
  storeAuthSubject,
  stringifyWire,
  ttlExpiresAt,
  type IndexableItem,
  type IndexCursor,
  type Item,
  type ListNamespacesOptions,
  type SearchedItem,
  type StoreGetOptions,
  type StorePutOptions,
  type StoreRepo,
  type StoreSearchOptions,
  type StoreVector,
} from "@agent-server/core";
import { intOr, parseJson, Statements, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";
import { scoreSql, SqliteVectorRows, vectorBlob, type SqliteVectorSearch } from "./store-vectors.js";

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
  score?: number;
}

/**
 * Namespaces are stored as their labels joined with "." (labels never contain "."), so "starts with
 * prefix P" is the index range `namespace = P OR (namespace >= 'P.' AND namespace < 'P/')` on the
 * primary key ('/' is the character after '.').
 */
function joinNs(namespace: string[]): string {
  return namespace.join(".");
}

function splitNs(namespace: string): string[] {
  return namespace === "" ? [] : namespace.split(".");
}

const COLUMNS = "namespace, key, value, created_at, updated_at, ttl_minutes";
/** Not expired at `?` (core's isExpired): ISO-8601 strings of one format compare as text. */
const LIVE = "(expires_at IS NULL OR expires_at > ?)";
const LIVE_I = "(i.expires_at IS NULL OR i.expires_at > ?)";

export class SqliteStoreRepo implements StoreRepo {
  private readonly s: Statements;
  private readonly upsert;
  private readonly byKey;
  private readonly deleteKey;
  private readonly vectors: SqliteVectorRows;
  private readonly putWithVectors;

  /** Seals values; vectors stay as they are (computed before the put, they are what a search ranks). */
  private readonly c: TableCodec<"store_items">;

  /** `vectorSearch`: how queries are scored (store-vectors.ts); logged at start through `vectorSearch`. */
  constructor(
    private readonly db: Db,
    codecs: TableCodecs,
    private readonly search_: SqliteVectorSearch = "exact",
  ) {
    this.c = codecs.store_items;
    this.s = new Statements(db);
    this.vectors = new SqliteVectorRows(db);
    // write_seq orders updates made within the same millisecond (MAX uses its index).
    this.upsert = db.prepare(
      `INSERT INTO store_items (namespace, key, value, created_at, updated_at, write_seq, ttl_minutes, expires_at, index_fields)
       VALUES (@namespace, @key, @value, @now, @now, (SELECT COALESCE(MAX(write_seq), 0) + 1 FROM store_items), @ttl_minutes, @expires_at, @index_fields)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, index_fields = excluded.index_fields,
         write_seq = excluded.write_seq, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at,
         -- An expired item is gone for every read: a put over it creates the item anew.
         created_at = CASE WHEN store_items.expires_at IS NOT NULL AND store_items.expires_at <= excluded.updated_at
           THEN excluded.created_at ELSE store_items.created_at END`,
    );
    this.byKey = db.prepare(`SELECT ${COLUMNS} FROM store_items WHERE namespace = ? AND key = ? AND ${LIVE}`);
    this.deleteKey = db.prepare("DELETE FROM store_items WHERE namespace = ? AND key = ?");
    // The item and its vectors in one transaction: a replaced value is never found by its old vectors.
    this.putWithVectors = db.transaction((row: Record<string, unknown>, vectors: StoreVector[]) => {
      this.upsert.run(row);
      this.vectors.replace(row.namespace as string, row.key as string, vectors);
    });
  }

  /** "sqlite-vec" or "exact": how this driver scores semantic searches. */
  get vectorSearch(): string {
    return this.search_ === "sqlite-vec" ? "sqlite-vec (vec_distance_cosine, exact)" : "exact scan (JavaScript)";
  }

  async put(namespace: string[], key: string, value: Record<string, unknown>, options?: StorePutOptions): Promise<void> {
    const now = nowIso();
    const ttl = options?.ttl ?? null;
    const index = options?.index;
    const row = {
      namespace: joinNs(namespace),
      key,
      value: this.c.text("value", value),
      now,
      ttl_minutes: ttl,
      expires_at: ttl === null ? null : ttlExpiresAt(now, ttl),
      index_fields: index === undefined || index === null ? null : JSON.stringify(index),
    };
    this.putWithVectors.immediate(row, options?.vectors ?? []);
  }

  async getIndexIdentity(): Promise<string | null> {
    return this.vectors.getIdentity();
  }

  async setIndexIdentity(identity: string | null): Promise<void> {
    this.vectors.setIdentity(identity);
  }

  /** Keyset pagination on the primary key. */
  async scanIndexable(cursor: IndexCursor | null, limit: number): Promise<IndexableItem[]> {
    const now = nowIso();
    const n = Math.max(0, Math.floor(limit));
    const rows = (
      cursor
        ? this.s
            .get(
              `SELECT ${COLUMNS}, index_fields FROM store_items WHERE (namespace, key) > (?, ?) AND ${LIVE} ORDER BY namespace, key LIMIT ?`,
            )
            .all(joinNs(cursor.namespace), cursor.key, now, n)
        : this.s.get(`SELECT ${COLUMNS}, index_fields FROM store_items WHERE ${LIVE} ORDER BY namespace, key LIMIT ?`).all(now, n)
    ) as Array<ItemRow & { index_fields: string | null }>;
    return rows.map((r) => ({ ...this.toItem(r), index: parseJson<false | string[] | null>(r.index_fields, null) }));
  }

  async replaceVectors(namespace: string[], key: string, vectors: StoreVector[]): Promise<boolean> {
    const write = this.db.transaction(() => {
      if (!this.byKey.get(joinNs(namespace), key, nowIso())) return false;
      this.vectors.replace(joinNs(namespace), key, vectors);
      return true;
    });
    return write.immediate();
  }

  async get(namespace: string[], key: string, options?: StoreGetOptions): Promise<Item | null> {
    const now = nowIso();
    const row = this.byKey.get(joinNs(namespace), key, now) as ItemRow | undefined;
    if (!row) return null;
    if (options?.refreshTtl) this.refresh([row], now);
    return this.toItem(row);
  }

  private toItem(row: ItemRow): Item {
    return {
      namespace: splitNs(row.namespace),
      key: row.key,
      value: this.c.value("value", row.value, {}),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /** An index range of the expired items, soonest first, deleted in one statement. */
  async sweepExpired(now: string, limit: number): Promise<number> {
    return this.s
      .get(
        `DELETE FROM store_items WHERE rowid IN (
           SELECT rowid FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)`,
      )
      .run(now, Math.max(0, Math.floor(limit))).changes;
  }

  /** The rows that have a TTL expire it from now: one statement, only when there is one. */
  private refresh(rows: ItemRow[], now: string): void {
    const timed = rows.filter((r) => r.ttl_minutes !== null);
    if (timed.length === 0) return;
    this.s
      .get(
        `UPDATE store_items SET expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', ?, printf('%+.3f seconds', ttl_minutes * 60.0))
         WHERE ttl_minutes IS NOT NULL AND (namespace, key) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
      )
      .run(now, JSON.stringify(timed.map((r) => [r.namespace, r.key])));
  }

  async delete(namespace: string[], key: string): Promise<boolean> {
    return this.deleteKey.run(joinNs(namespace), key).changes > 0;
  }

  /**
   * Prefix range on the primary key; the value and auth filters are evaluated per item of that range by
   * the registered `as_store_match` / `as_store_auth_match` functions (O(items under the prefix)), then
   * sorted by update. With a query, the vectors under the prefix are read in primary-key order (a range
   * scan: looking each item's vectors up instead costs ~10× more, their rows being large), each joined to
   * its item by primary key, the other conditions applied, and scored: O(vectors under the prefix × dims).
   * Groups come in key order (no temporary tree); the sorter keeps only `offset + limit` rows.
   */
  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<SearchedItem[]> {
    const now = nowIso();
    const query = options?.query;
    const params: unknown[] = query ? [vectorBlob(query), now] : [now];
    const clauses: string[] = [query ? LIVE_I : LIVE];
    const col = (name: string) => (query ? `i.${name}` : name);
    if (namespacePrefix.length > 0) {
      const p = joinNs(namespacePrefix);
      // With a query the vectors drive (v.namespace: their primary key's seekable range [P, P/), which also
      // holds "P-x"); the OR keeps P and P.*.
      if (query) clauses.push("v.namespace >= ? AND v.namespace < ?");
      clauses.push(`(${col("namespace")} = ? OR (${col("namespace")} >= ? AND ${col("namespace")} < ?))`);
      if (query) params.push(p, `${p}/`);
      params.push(p, `${p}.`, `${p}/`);
    }
    if (options?.filter !== undefined && Object.keys(options.filter).length > 0) {
      clauses.push(`as_store_match(${col("value")}, ?)`);
      params.push(stringifyWire(options.filter));
    }
    if (options?.authFilter !== undefined) {
      clauses.push(`as_store_auth_match(${col("namespace")}, ${col("key")}, ${col("value")}, ?)`);
      params.push(stringifyWire(options.authFilter));
    }
    const where = `WHERE ${clauses.join(" AND ")}`;
    const sql = query
      ? `SELECT ${COLUMNS.split(", ").map(col).join(", ")}, MAX(${scoreSql(this.search_)}) AS score
         FROM store_vectors v CROSS JOIN store_items i ON i.namespace = v.namespace AND i.key = v.key ${where}
         GROUP BY v.namespace, v.key ORDER BY score DESC, i.updated_at DESC, i.write_seq DESC LIMIT ? OFFSET ?`
      : `SELECT ${COLUMNS} FROM store_items ${where} ORDER BY updated_at DESC, write_seq DESC LIMIT ? OFFSET ?`;
    const rows = this.s.get(sql).all(...params, intOr(options?.limit, 10), intOr(options?.offset, 0)) as ItemRow[];
    if (options?.refreshTtl) this.refresh(rows, now);
    return rows.map((row) => (query ? { ...this.toItem(row), score: row.score! } : this.toItem(row)));
  }

  /**
   * Distinct namespaces (narrowed by the literal head of the prefix through the primary key), then
   * wildcard matching, maxDepth truncation, de-duplication and label-wise sorting in JS:
   * O(distinct namespaces under the literal prefix).
   */
  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    const prefix = options?.prefix ?? [];
    const suffix = options?.suffix ?? [];
    const literal: string[] = [];
    for (const label of prefix) {
      if (label === "*") break;
      literal.push(label);
    }
    let rows: { namespace: string }[];
    const now = nowIso();
    if (literal.length > 0) {
      const p = joinNs(literal);
      rows = this.s
        .get(`SELECT DISTINCT namespace FROM store_items WHERE (namespace = ? OR (namespace >= ? AND namespace < ?)) AND ${LIVE}`)
        .all(p, `${p}.`, `${p}/`, now) as { namespace: string }[];
    } else {
      rows = this.s.get(`SELECT DISTINCT namespace FROM store_items WHERE ${LIVE}`).all(now) as { namespace: string }[];
    }
    const seen = new Map<string, string[]>();
    for (const { namespace } of rows) {
      const labels = splitNs(namespace);
      if (!matchesPattern(labels, prefix, "prefix") || !matchesPattern(labels, suffix, "suffix")) continue;
      if (options?.authFilter && !matchesAuthFilter(storeAuthSubject(labels), options.authFilter)) continue;
      const truncated = options?.maxDepth !== undefined ? labels.slice(0, Math.max(0, options.maxDepth)) : labels;
      const id = JSON.stringify(truncated);
      if (!seen.has(id)) seen.set(id, truncated);
    }
    const sorted = [...seen.values()].sort(compareLabels);
    const offset = intOr(options?.offset, 0);
    return sorted.slice(offset, offset + intOr(options?.limit, 100));
  }
}

function matchesPattern(labels: string[], pattern: string[], side: "prefix" | "suffix"): boolean {
  if (pattern.length > labels.length) return false;
  const start = side === "prefix" ? 0 : labels.length - pattern.length;
  return pattern.every((p, i) => p === "*" || p === labels[start + i]);
}

function compareLabels(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}
