import { nowIso, type Item, type ListNamespacesOptions, type StoreRepo, type StoreSearchOptions } from "@agent-server/core";
import type pg from "pg";
import { limitOffset, Params, query, queryCount, toDbJson, whereClause, type Tables } from "./db.js";
import { authFilterSql, storeFilterSql } from "./filters-sql.js";

const COLUMNS = `namespace, key, value, created_at, updated_at`;

/** core's `storeAuthSubject(namespace, key, value)` as a jsonb expression over a store_items row. */
const AUTH_SUBJECT = "(value || jsonb_build_object('namespace', to_jsonb(namespace), 'key', key))";

/** Labels never contain "." (LangGraph validates), so the joined path is unambiguous and prefix-searchable. */
const nsPath = (namespace: string[]) => namespace.join(".");

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class PostgresStoreRepo implements StoreRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
  ) {}

  /** Upsert; created_at survives a replace, seq is bumped (newest-update-first tie-break). */
  async put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
    const json = toDbJson(value ?? {});
    await query(
      this.pool,
      `INSERT INTO ${this.t.storeItems} (ns_path, namespace, key, value, created_at, updated_at)
       VALUES ($1, $2::text[], $3, $4::jsonb, $5, $5)
       ON CONFLICT (ns_path, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, seq = DEFAULT`,
      [nsPath(namespace), namespace, key, json, nowIso()],
    );
  }

  async get(namespace: string[], key: string): Promise<Item | null> {
    const [row] = await query<Item>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2`, [
      nsPath(namespace),
      key,
    ]);
    return row ?? null;
  }

  async delete(namespace: string[], key: string): Promise<boolean> {
    return (await queryCount(this.pool, `DELETE FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2`, [nsPath(namespace), key])) > 0;
  }

  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<Item[]> {
    const params = new Params();
    const where: string[] = [];
    if (namespacePrefix.length) {
      const path = nsPath(namespacePrefix);
      // Uses the text_pattern_ops index on ns_path.
      where.push(`(ns_path = ${params.add(path)} OR ns_path LIKE ${params.add(`${escapeLike(path)}.%`)})`);
    }
    where.push(...storeFilterSql(params, "value", options?.filter));
    where.push(...authFilterSql(params, AUTH_SUBJECT, options?.authFilter));
    return query<Item>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.t.storeItems} ${whereClause(where)}
       ORDER BY updated_at DESC, seq DESC ${limitOffset(params, options?.limit, options?.offset, 10)}`,
      params.values,
    );
  }

  /**
   * Prefix/suffix patterns ("*" = any label) compare array elements; truncation to `maxDepth` is
   * `namespace[1:maxDepth]`; labels sort by code point (`COLLATE "C"`), a namespace before its extensions.
   */
  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    const params = new Params();
    const where: string[] = [];
    const prefix = options?.prefix ?? [];
    const suffix = options?.suffix ?? [];
    if (prefix.length) where.push(`cardinality(namespace) >= ${prefix.length}`);
    prefix.forEach((label, i) => {
      if (label !== "*") where.push(`namespace[${i + 1}] = ${params.add(label)}`);
    });
    if (suffix.length) where.push(`cardinality(namespace) >= ${suffix.length}`);
    suffix.forEach((label, i) => {
      if (label !== "*") where.push(`namespace[cardinality(namespace) - ${suffix.length - 1 - i}] = ${params.add(label)}`);
    });
    // Matched on the full namespace, before truncation to maxDepth.
    where.push(...authFilterSql(params, "jsonb_build_object('namespace', to_jsonb(namespace))", options?.authFilter));
    const depth = options?.maxDepth;
    const ns = depth !== undefined ? `namespace[1:${params.add(Math.max(0, Math.floor(depth)))}::int]` : "namespace";
    const rows = await query<{ ns: string[] | null }>(
      this.pool,
      `SELECT DISTINCT ${ns}::text[] COLLATE "C" AS ns FROM ${this.t.storeItems} ${whereClause(where)}
       ORDER BY ns ${limitOffset(params, options?.limit, options?.offset, 100)}`,
      params.values,
    );
    return rows.map((r) => r.ns ?? []);
  }
}
