import {
  nowIso,
  ttlExpiresAt,
  type Item,
  type ListNamespacesOptions,
  type StoreGetOptions,
  type StorePutOptions,
  type StoreRepo,
  type StoreSearchOptions,
} from "@agent-server/core";
import type pg from "pg";
import { limitOffset, Params, query, queryCount, toDbJson, whereClause, type Tables } from "./db.js";
import { authFilterSql, storeFilterSql } from "./filters-sql.js";

const COLUMNS = `namespace, key, value, created_at, updated_at`;
/** Not expired at `$n` (core's isExpired); expired rows stay in place until a sweep deletes them. */
const live = (now: string) => `(expires_at IS NULL OR expires_at > ${now})`;
/** A read that refreshes: items with a TTL expire it from `$now`; the others are left alone. */
const refreshed = (now: string) => `CASE WHEN s.ttl_minutes IS NOT NULL THEN ${now}::timestamptz + s.ttl_minutes * interval '1 minute' END`;

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
  async put(namespace: string[], key: string, value: Record<string, unknown>, options?: StorePutOptions): Promise<void> {
    const json = toDbJson(value ?? {});
    const now = nowIso();
    const ttl = options?.ttl ?? null;
    // An expired item is gone for every read: a put over it creates the item anew (created_at = now).
    await query(
      this.pool,
      `INSERT INTO ${this.t.storeItems} AS s (ns_path, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
       VALUES ($1, $2::text[], $3, $4::jsonb, $5, $5, $6, $7)
       ON CONFLICT (ns_path, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, seq = DEFAULT,
         ttl_minutes = EXCLUDED.ttl_minutes, expires_at = EXCLUDED.expires_at,
         created_at = CASE WHEN s.expires_at <= EXCLUDED.updated_at THEN EXCLUDED.created_at ELSE s.created_at END`,
      [nsPath(namespace), namespace, key, json, now, ttl, ttl === null ? null : ttlExpiresAt(now, ttl)],
    );
  }

  /** With a refresh: one UPDATE … RETURNING of the live row (no write for an item without a TTL). */
  async get(namespace: string[], key: string, options?: StoreGetOptions): Promise<Item | null> {
    const now = nowIso();
    const sql = options?.refreshTtl
      ? `WITH hit AS (SELECT ${COLUMNS}, ttl_minutes FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2 AND ${live("$3")}),
              touched AS (UPDATE ${this.t.storeItems} s SET expires_at = ${refreshed("$3")}
                           FROM hit WHERE hit.ttl_minutes IS NOT NULL AND s.ns_path = $1 AND s.key = $2)
         SELECT ${COLUMNS} FROM hit`
      : `SELECT ${COLUMNS} FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2 AND ${live("$3")}`;
    const [row] = await query<Item>(this.pool, sql, [nsPath(namespace), key, now]);
    return row ?? null;
  }

  /**
   * Deletes an index range of expired items, soonest first, in one statement. `SKIP LOCKED`: items
   * another process is deleting at that moment are its own, so no item is deleted (or counted) twice.
   */
  async sweepExpired(now: string, limit: number): Promise<number> {
    return queryCount(
      this.pool,
      `DELETE FROM ${this.t.storeItems} WHERE (ns_path, key) IN (
         SELECT ns_path, key FROM ${this.t.storeItems} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, Math.max(0, Math.floor(limit))],
    );
  }

  async delete(namespace: string[], key: string): Promise<boolean> {
    return (await queryCount(this.pool, `DELETE FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2`, [nsPath(namespace), key])) > 0;
  }

  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<Item[]> {
    const params = new Params();
    const now = params.add(nowIso());
    const where: string[] = [live(now)];
    if (namespacePrefix.length) {
      const path = nsPath(namespacePrefix);
      // Uses the text_pattern_ops index on ns_path.
      where.push(`(ns_path = ${params.add(path)} OR ns_path LIKE ${params.add(`${escapeLike(path)}.%`)})`);
    }
    where.push(...storeFilterSql(params, "value", options?.filter));
    where.push(...authFilterSql(params, AUTH_SUBJECT, options?.authFilter));
    const page = `FROM ${this.t.storeItems} ${whereClause(where)}
       ORDER BY updated_at DESC, seq DESC ${limitOffset(params, options?.limit, options?.offset, 10)}`;
    if (!options?.refreshTtl) return query<Item>(this.pool, `SELECT ${COLUMNS} ${page}`, params.values);
    const select = `SELECT ${COLUMNS}, seq, ns_path, ttl_minutes ${page}`;
    // One statement: the page, and the refresh of its items that have a TTL.
    return query<Item>(
      this.pool,
      `WITH page AS (${select}),
            touched AS (UPDATE ${this.t.storeItems} s SET expires_at = ${refreshed(now)}
                        FROM page WHERE page.ttl_minutes IS NOT NULL AND s.ns_path = page.ns_path AND s.key = page.key)
       SELECT ${COLUMNS} FROM page ORDER BY updated_at DESC, seq DESC`,
      params.values,
    );
  }

  /**
   * Prefix/suffix patterns ("*" = any label) compare array elements; truncation to `maxDepth` is
   * `namespace[1:maxDepth]`; labels sort by code point (`COLLATE "C"`), a namespace before its extensions.
   */
  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    const params = new Params();
    const where: string[] = [live(params.add(nowIso()))];
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
