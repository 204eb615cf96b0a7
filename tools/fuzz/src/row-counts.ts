import Database from "better-sqlite3";

/** Row count per table of the server's SQLite file. */
export type RowCounts = Record<string, number>;

/**
 * What the server does on its own between two requests (run execution and settlement, webhook outbox):
 * when it moved during a refused request, a row-count change may be the server's, not the request's.
 */
export interface Background {
  running: number;
  pending: number;
  lastRunUpdate: string | null;
  deliveries: number;
}

/**
 * Tables only a request writes: a count change there during a refused request is the request's, whatever
 * ran in the background (crons never fire during a campaign: the generated schedules are far in the future).
 */
const REQUEST_ONLY_TABLES = new Set(["assistants", "assistant_versions", "store_items", "crons", "push_configs"]);
/** Only a request adds rows here; settlement removes some (stateless runs delete their temporary thread). */
const REQUEST_ADDED_TABLES = new Set(["threads", "runs"]);

/**
 * A read-only connection to the server's SQLite file (WAL: reads never block the server's writes).
 * Cost: one snapshot is one `count(*)` per table (13 tables), each a b-tree walk of that table, so O(rows)
 * in total; on the few thousand rows a campaign writes that is well under a millisecond, taken twice per
 * refused request.
 */
export class RowCounter {
  private readonly db: Database.Database;
  private readonly tables: string[];

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.db.pragma("busy_timeout = 5000");
    this.tables = (this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
      .map((row) => row.name)
      .filter((name) => name !== "schema_migrations" && !name.startsWith("sqlite_"));
  }

  counts(): RowCounts {
    const counts: RowCounts = {};
    for (const table of this.tables) {
      counts[table] = (this.db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
    }
    return counts;
  }

  background(): Background {
    const runs = this.db
      .prepare("SELECT sum(status = 'running') AS running, sum(status = 'pending') AS pending, max(updated_at) AS last FROM runs")
      .get() as { running: number | null; pending: number | null; last: string | null };
    const deliveries = (this.db.prepare("SELECT count(*) AS n FROM deliveries").get() as { n: number }).n;
    return { running: runs.running ?? 0, pending: runs.pending ?? 0, lastRunUpdate: runs.last, deliveries };
  }

  /** The rows each query selects, as JSON keyed by the query's name (a direct look at the file, past any auth). */
  rows(queries: Record<string, [sql: string, ...params: string[]]>): Record<string, unknown[]> {
    const result: Record<string, unknown[]> = {};
    for (const [name, [sql, ...params]] of Object.entries(queries)) result[name] = this.db.prepare(sql).all(...params);
    return result;
  }

  /** Waits (up to `maxMs`) until no run is executing, so a request starts on a quiet store. */
  async quiet(maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    while (this.background().running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }

  close(): void {
    this.db.close();
  }
}

/** Tables whose count changed, as `table: before→after`. */
export function countChanges(before: RowCounts, after: RowCounts): string[] {
  return Object.keys({ ...before, ...after })
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table}: ${before[table] ?? 0}→${after[table] ?? 0}`);
}

/**
 * Whether the count changes are the request's own: any change in a request-only table, more threads or
 * runs; anything else (checkpoints, writes, events, results, deliveries, fewer threads or runs) only when
 * nothing moved in the background meanwhile.
 */
export function attributableToRequest(before: RowCounts, after: RowCounts, bgBefore: Background, bgAfter: Background): boolean {
  for (const table of Object.keys(after)) {
    if (before[table] === after[table]) continue;
    if (REQUEST_ONLY_TABLES.has(table)) return true;
    if (REQUEST_ADDED_TABLES.has(table) && after[table]! > (before[table] ?? 0)) return true;
  }
  return JSON.stringify(bgBefore) === JSON.stringify(bgAfter) && bgAfter.running === 0;
}
