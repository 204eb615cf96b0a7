import {
  matchesAuthFilter,
  matchesStoreFilter,
  nowIso,
  storeAuthSubject,
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
import type pg from "pg";
import { limitOffset, Params, query, queryCount, whereClause, type Tables } from "./db.js";
import { vectorScoreSql, type PostgresVectorSearch } from "./store-vectors.js";
import { authFilterSql, storeFilterSql } from "./filters-sql.js";
import { pageMatching } from "./sealed-scan.js";
import type { Sealer } from "./sealing.js";

const COLUMNS = `namespace, key, value, created_at, updated_at`;
/** Not expired at `$n` (core's isExpired); expired rows stay in place until a sweep deletes them. */
const live = (now: string) => `(expires_at IS NULL OR expires_at > ${now})`;
/** A read that refreshes: items with a TTL expire it from `$now`; the others are left alone. */
const refreshed = (now: string) => `CASE WHEN s.ttl_minutes IS NOT NULL THEN ${now}::timestamptz + s.ttl_minutes * interval '1 minute' END`;

/** core's `storeAuthSubject(namespace, key, value)` as a jsonb expression over a store_items row. */
const AUTH_SUBJECT = "(value || jsonb_build_object('namespace', to_jsonb(namespace), 'key', key))";
/** Auth filter fields SQL reads beside a sealed value (the rest of the subject is the value's own fields). */
const UNSEALED_SUBJECT = new Set(["namespace", "key"]);

/** Labels never contain "." (LangGraph validates), so the joined path is unambiguous and prefix-searchable. */
const nsPath = (namespace: string[]) => namespace.join(".");

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class PostgresStoreRepo implements StoreRepo {
  /** How semantic searches score (store-vectors.ts); set by `openPostgresStorage` once it has looked for pgvector. */
  vectorMethod: PostgresVectorSearch = "exact";

  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  get vectorSearch(): string {
    return this.vectorMethod === "pgvector" ? "pgvector (cosine distance, exact scan)" : "exact scan (SQL over real[])";
  }

  async getIndexIdentity(): Promise<string | null> {
    const [row] = await query<{ identity: string }>(this.pool, `SELECT identity FROM ${this.t.storeIndex} WHERE id = 1`, []);
    return row?.identity ?? null;
  }

  async setIndexIdentity(identity: string | null): Promise<void> {
    if (identity === null) await query(this.pool, `DELETE FROM ${this.t.storeIndex} WHERE id = 1`, []);
    else
      await query(
        this.pool,
        `INSERT INTO ${this.t.storeIndex} (id, identity) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET identity = EXCLUDED.identity`,
        [identity],
      );
  }

  /** Keyset pagination on the primary key (ns_path, key). */
  async scanIndexable(cursor: IndexCursor | null, limit: number): Promise<IndexableItem[]> {
    const params = new Params([nowIso()]);
    const where = [live("$1")];
    if (cursor) where.push(`(ns_path, key) > (${params.add(nsPath(cursor.namespace))}, ${params.add(cursor.key)})`);
    const rows = await query<Item & { index_fields: false | string[] | null }>(
      this.pool,
      `SELECT ${COLUMNS}, index_fields FROM ${this.t.storeItems} ${whereClause(where)} ORDER BY ns_path, key LIMIT ${params.add(Math.max(0, Math.floor(limit)))}`,
      params.values,
    );
    return this.seal.rows("store_items", rows).map(({ index_fields, ...item }) => ({ ...item, index: index_fields ?? null }));
  }

  /** One statement: the old vectors go and the new ones come only if the item is there and live. */
  async replaceVectors(namespace: string[], key: string, vectors: StoreVector[]): Promise<boolean> {
    const [row] = await query<{ found: boolean }>(
      this.pool,
      `WITH hit AS (SELECT ns_path, key FROM ${this.t.storeItems} WHERE ns_path = $1 AND key = $2 AND ${live("$3")} FOR UPDATE),
            ${replaceVectorsSql(this.t.storeVectors, "hit", "$1", "$2", "$4").gone},
            added AS (${replaceVectorsSql(this.t.storeVectors, "hit", "$1", "$2", "$4").insert} RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM hit) AS found`,
      [nsPath(namespace), key, nowIso(), vectorsJson(vectors)],
    );
    return row?.found ?? false;
  }

  /** Upsert; created_at survives a replace, seq is bumped (newest-update-first tie-break). */
  async put(namespace: string[], key: string, value: Record<string, unknown>, options?: StorePutOptions): Promise<void> {
    const json = this.seal.json("store_items", "value", value ?? {});
    const now = nowIso();
    const ttl = options?.ttl ?? null;
    // An expired item is gone for every read: a put over it creates the item anew (created_at = now).
    const index = options?.index;
    // One statement: the item, and its vectors replaced (a replaced value is never found by its old text).
    await query(
      this.pool,
      `WITH item AS (
         INSERT INTO ${this.t.storeItems} AS s (ns_path, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at, index_fields)
         VALUES ($1, $2::text[], $3, $4::jsonb, $5, $5, $6, $7, $8::jsonb)
         ON CONFLICT (ns_path, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, seq = DEFAULT,
           ttl_minutes = EXCLUDED.ttl_minutes, expires_at = EXCLUDED.expires_at, index_fields = EXCLUDED.index_fields,
           created_at = CASE WHEN s.expires_at <= EXCLUDED.updated_at THEN EXCLUDED.created_at ELSE s.created_at END
         RETURNING ns_path, key),
       ${replaceVectorsSql(this.t.storeVectors, "item", "$1", "$3", "$9").gone}
       ${replaceVectorsSql(this.t.storeVectors, "item", "$1", "$3", "$9").insert}`,
      [
        nsPath(namespace),
        namespace,
        key,
        json,
        now,
        ttl,
        ttl === null ? null : ttlExpiresAt(now, ttl),
        index === undefined || index === null ? null : JSON.stringify(index),
        vectorsJson(options?.vectors ?? []),
      ],
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
    return row ? this.seal.row("store_items", row) : null;
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

  /**
   * With a query, each item the other conditions leave has its vectors read by primary key and scored
   * (an exact scan: O(items under the prefix × dims)); ORDER BY … LIMIT keeps only `offset + limit` rows
   * (PostgreSQL's top-N heapsort).
   */
  async search(namespacePrefix: string[], options?: StoreSearchOptions): Promise<SearchedItem[]> {
    const params = new Params();
    const now = params.add(nowIso());
    const where: string[] = [live(now)];
    const q = options?.query;
    const scored = q
      ? `CROSS JOIN LATERAL (SELECT max(${vectorScoreSql(this.vectorMethod, params.add(q))}) AS score
           FROM ${this.t.storeVectors} v WHERE v.ns_path = s.ns_path AND v.key = s.key) sc`
      : "";
    if (q) where.push("sc.score IS NOT NULL"); // items without vectors are not found by a query
    const order = q ? "score DESC, updated_at DESC, seq DESC" : "updated_at DESC, seq DESC";
    const columns = q ? `${COLUMNS}, score` : COLUMNS;
    if (namespacePrefix.length) {
      const path = nsPath(namespacePrefix);
      // Uses the text_pattern_ops index on ns_path.
      where.push(`(ns_path = ${params.add(path)} OR ns_path LIKE ${params.add(`${escapeLike(path)}.%`)})`);
    }
    const matches = this.sealedMatch(options);
    if (matches) return this.searchOpened(where, params, `FROM ${this.t.storeItems} s ${scored}`, columns, order, matches, options!);
    where.push(...storeFilterSql(params, "value", options?.filter));
    where.push(...authFilterSql(params, AUTH_SUBJECT, options?.authFilter));
    const page = `FROM ${this.t.storeItems} s ${scored} ${whereClause(where)}
       ORDER BY ${order} ${limitOffset(params, options?.limit, options?.offset, 10)}`;
    if (!options?.refreshTtl) return this.opened(await query<SearchedItem>(this.pool, `SELECT ${columns} ${page}`, params.values));
    const select = `SELECT ${columns}, seq, ns_path, ttl_minutes ${page}`;
    // One statement: the page, and the refresh of its items that have a TTL.
    return this.opened(
      await query<SearchedItem>(
        this.pool,
        `WITH page AS (${select}),
              touched AS (UPDATE ${this.t.storeItems} s SET expires_at = ${refreshed(now)}
                          FROM page WHERE page.ttl_minutes IS NOT NULL AND s.ns_path = page.ns_path AND s.key = page.key)
         SELECT ${columns} FROM page ORDER BY ${order}`,
        params.values,
      ),
    );
  }

  /**
   * With a key, a value filter (or an auth filter on value fields) cannot be evaluated by SQL: the test
   * of an opened item, core's own rules; none when SQL can answer.
   */
  private sealedMatch(options: StoreSearchOptions | undefined): ((item: SearchedItem) => boolean) | undefined {
    if (!this.seal.sealing) return undefined;
    const filter = options?.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
    const auth = options?.authFilter;
    const authOnValue = auth !== undefined && Object.keys(auth).some((k) => !UNSEALED_SUBJECT.has(k));
    if (!filter && !authOnValue) return undefined;
    return (item) =>
      matchesStoreFilter(item.value, filter) && matchesAuthFilter(storeAuthSubject(item.namespace, item.key, item.value), auth);
  }

  /**
   * A search matched in the process (sealed-scan.ts): the candidates the prefix, expiry and query leave,
   * in the search's order, opened and matched until the page is full; then, with `refreshTtl`, one
   * UPDATE refreshes the page's items that have a TTL.
   */
  private async searchOpened(
    where: string[],
    params: Params,
    from: string,
    columns: string,
    order: string,
    matches: (item: SearchedItem) => boolean,
    options: StoreSearchOptions,
  ): Promise<SearchedItem[]> {
    type Candidate = SearchedItem & { ns_path: string; ttl_minutes: number | null };
    const sql = `SELECT ${columns}, ns_path, ttl_minutes ${from} ${whereClause(where)} ORDER BY ${order}`;
    const page = await pageMatching<Candidate>(
      this.pool,
      sql,
      params.values,
      (row) => matches(this.seal.row("store_items", row)),
      options,
      10,
    );
    const refresh = options.refreshTtl ? page.filter((item) => item.ttl_minutes !== null) : [];
    if (refresh.length > 0) {
      await query(
        this.pool,
        `UPDATE ${this.t.storeItems} s SET expires_at = ${refreshed("$1")}
           FROM unnest($2::text[], $3::text[]) AS p(ns_path, key) WHERE s.ns_path = p.ns_path AND s.key = p.key`,
        [nowIso(), refresh.map((i) => i.ns_path), refresh.map((i) => i.key)],
      );
    }
    return scoredItems(page.map(({ ns_path: _ns, ttl_minutes: _ttl, ...item }) => item));
  }

  /** Rows as items: sealed values opened, scores as numbers. */
  private opened(rows: SearchedItem[]): SearchedItem[] {
    return scoredItems(this.seal.rows("store_items", rows));
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

/** Vectors as one JSON parameter (`jsonb_to_recordset`): any number of fields in one statement. */
function vectorsJson(vectors: StoreVector[]): string {
  return JSON.stringify(vectors.map((v) => ({ field: v.field, embedding: v.vector })));
}

/** `score` comes back as a float8 number; items without a query carry none. */
function scoredItems(rows: SearchedItem[]): SearchedItem[] {
  return rows.map((row) => (row.score === undefined || row.score === null ? row : { ...row, score: Number(row.score) }));
}

/**
 * The tail of a statement whose CTE `source` yields the item's (ns_path, key): its vectors become the
 * fields of `vectors` (a JSON parameter). Sub-statements of one statement share a snapshot and their
 * order is not defined, so the old rows are not deleted and reinserted: fields still there are updated
 * in place (ON CONFLICT) and only the fields no longer there are deleted, two disjoint sets of rows.
 */
function replaceVectorsSql(
  table: string,
  source: string,
  nsParam: string,
  keyParam: string,
  vectors: string,
): { gone: string; insert: string } {
  const fields = `jsonb_to_recordset(${vectors}::jsonb) AS f(field text, embedding jsonb)`;
  return {
    gone: `gone AS (DELETE FROM ${table} WHERE ns_path = ${nsParam} AND key = ${keyParam}
             AND EXISTS (SELECT 1 FROM ${source}) AND field <> ALL (ARRAY(SELECT f.field FROM ${fields})))`,
    insert: `INSERT INTO ${table} (ns_path, key, field, embedding)
       SELECT ${source}.ns_path, ${source}.key, f.field, ARRAY(SELECT jsonb_array_elements_text(f.embedding)::real)
       FROM ${source}, ${fields}
       ON CONFLICT (ns_path, key, field) DO UPDATE SET embedding = EXCLUDED.embedding`,
  };
}
