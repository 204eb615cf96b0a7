import type pg from "pg";
import { query, transaction } from "./db.js";

/** The first batch a scan fetches; each next one is twice as large, up to MAX_BATCH. */
const FIRST_BATCH = 100;
const MAX_BATCH = 5000;

/**
 * Searches whose filter reads into sealed values (a store `filter`, a thread `values` filter, a metadata
 * filter on a LANGGRAPH_AES_JSON_KEYS key) cannot be answered by SQL: jsonb containment and comparisons
 * see only `{"$enc": …}`. `sql` then selects the candidates (every other condition, the search's order,
 * no LIMIT/OFFSET); they are read through a cursor in growing batches (100, 200, … 5,000 rows), opened
 * and matched here by core's rules, until `offset + limit` have matched or the candidates run out.
 *
 * Cost: O(C) candidate rows read and opened, C being the candidates up to the last match needed (all of
 * them when fewer match, and always for a count), in 3 + O(log C) statements (BEGIN, DECLARE, FETCHes,
 * COMMIT). The cursor reads one snapshot, so a concurrent write neither repeats nor drops a row between
 * batches, and an ordered index (updated_at, created_at) is read only as far as needed. Searches without
 * such a filter, and every search without a key, stay one statement with the filter in SQL.
 */
export async function pageMatching<R>(
  pool: pg.Pool,
  sql: string,
  values: unknown[],
  matches: (row: R) => boolean,
  page: { limit?: number | undefined; offset?: number | undefined },
  defaultLimit: number,
): Promise<R[]> {
  const limit = Math.max(0, Math.floor(page.limit ?? defaultLimit));
  let skip = Math.max(0, Math.floor(page.offset ?? 0));
  const out: R[] = [];
  if (limit === 0) return out;
  await scan<R>(pool, sql, values, (rows) => {
    for (const row of rows) {
      if (!matches(row)) continue;
      if (skip > 0) skip -= 1;
      else if (out.push(row) >= limit) return true;
    }
    return false;
  });
  return out;
}

/** How many candidates of `sql` match: every candidate is read and opened (see `pageMatching`). */
export async function countMatching<R>(pool: pg.Pool, sql: string, values: unknown[], matches: (row: R) => boolean): Promise<number> {
  let count = 0;
  await scan<R>(pool, sql, values, (rows) => {
    for (const row of rows) if (matches(row)) count += 1;
    return false;
  });
  return count;
}

/** Feeds the rows of `sql` to `take` batch by batch until it answers true (enough) or they run out. */
async function scan<R>(pool: pg.Pool, sql: string, values: unknown[], take: (rows: R[]) => boolean): Promise<void> {
  await transaction(pool, async (client) => {
    await query(client, `DECLARE sealed_scan NO SCROLL CURSOR FOR ${sql}`, values);
    for (let batch = FIRST_BATCH; ; batch = Math.min(batch * 2, MAX_BATCH)) {
      const rows = await query<R>(client, `FETCH ${batch} FROM sealed_scan`);
      if (take(rows) || rows.length < batch) return;
    }
  });
}
