import {
  matchesAuthFilter,
  nowIso,
  storeAuthSubject,
  stringifyWire,
  type Item,
  type ListNamespacesOptions,
  type StoreRepo,
  type StoreSearchOptions,
} from "@agent-server/core";
import { intOr, parseJson, Statements, type Db } from "./db.js";

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
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

const COLUMNS = "namespace, key, value, created_at, updated_at";

export class SqliteStoreRepo implements StoreRepo {
  private readonly s: Statements;
  private readonly upsert;
  private readonly byKey;
  private readonly deleteKey;

  constructor(private readonly db: Db) {
    this.s = new Statements(db);
    // write_seq orders updates made within the same millisecond (MAX uses its index).
    this.upsert = db.prepare(
      `INSERT INTO store_items (namespace, key, value, created_at, updated_at, write_seq)
       VALUES (@namespace, @key, @value, @now, @now, (SELECT COALESCE(MAX(write_seq), 0) + 1 FROM store_items))
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
         write_seq = excluded.write_seq`,
    );
    this.byKey = db.prepare(`SELECT ${COLUMNS} FROM store_items WHERE namespace = ? AND key = ?`);
    this.deleteKey = db.prepare("DELETE FROM store_items WHERE namespace = ? AND key = ?");
  }

  async put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
    this.upsert.run({ namespace: joinNs(namespace), key, value: stringifyWire(value), now: nowIso() });
  }

  async get(namespace: string[], key: string): Promise<Item | null> {
    const row = this.byKey.get(joinNs(namespace), key) as ItemRow | undefined;
    return row ? toItem(row) : null;
  }

  async delete(namespace: string[], key: string): Promise<boolean> {
    return this.deleteKey.run(joinNs(namespace), key).changes > 0;
  }

  /**
   * Prefix range on the primary key; the value and auth filters are evaluated per item of that range by
   * the registered `as_store_match` / `as_store_auth_match` functions (O(items under the prefix)), then
   * sorted by update.
   */
  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<Item[]> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (namespacePrefix.length > 0) {
      const p = joinNs(namespacePrefix);
      clauses.push("(namespace = ? OR (namespace >= ? AND namespace < ?))");
      params.push(p, `${p}.`, `${p}/`);
    }
    if (options?.filter !== undefined && Object.keys(options.filter).length > 0) {
      clauses.push("as_store_match(value, ?)");
      params.push(stringifyWire(options.filter));
    }
    if (options?.authFilter !== undefined) {
      clauses.push("as_store_auth_match(namespace, key, value, ?)");
      params.push(stringifyWire(options.authFilter));
    }
    const where = clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
    const sql = `SELECT ${COLUMNS} FROM store_items ${where} ORDER BY updated_at DESC, write_seq DESC LIMIT ? OFFSET ?`;
    const rows = this.s.get(sql).all(...params, intOr(options?.limit, 10), intOr(options?.offset, 0)) as ItemRow[];
    return rows.map(toItem);
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
    if (literal.length > 0) {
      const p = joinNs(literal);
      rows = this.s
        .get("SELECT DISTINCT namespace FROM store_items WHERE namespace = ? OR (namespace >= ? AND namespace < ?)")
        .all(p, `${p}.`, `${p}/`) as { namespace: string }[];
    } else {
      rows = this.s.get("SELECT DISTINCT namespace FROM store_items").all() as { namespace: string }[];
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

function toItem(row: ItemRow): Item {
  return {
    namespace: splitNs(row.namespace),
    key: row.key,
    value: parseJson(row.value, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
