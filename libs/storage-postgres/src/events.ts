import { addMs, nowIso, type EventRepo, type StoredEvent } from "@agent-server/core";
import type pg from "pg";
import { query, queryCount, type Tables } from "./db.js";
import type { Sealer } from "./sealing.js";

export class PostgresEventRepo implements EventRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  /**
   * The id comes from a per-run counter row bumped by an upsert (atomic across processes). The counter
   * outlives expiry and `deleteForRun`, so an id is never reused for a different event of the run.
   */
  async append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent> {
    const json = this.seal.json("run_events", "data", data);
    const now = nowIso();
    const [row] = await query<{ id: string; event: string; data: unknown }>(
      this.pool,
      `WITH counter AS (
         INSERT INTO ${this.t.runEventCounters} AS c (run_id, last_id) VALUES ($1, 1)
         ON CONFLICT (run_id) DO UPDATE SET last_id = c.last_id + 1
         RETURNING last_id)
       INSERT INTO ${this.t.runEvents} (run_id, id, event, data, created_at, expires_at)
       SELECT $1, last_id, $2, $3::jsonb, $4, $5 FROM counter
       RETURNING id::text AS id, event, data`,
      [runId, event, json, now, addMs(now, options.ttlMs)],
    );
    return { id: row!.id, event: row!.event, data: this.seal.open("run_events", "data", row!.data) ?? null };
  }

  /** One statement: the counter moves by the batch's size, the rows take the ids below its new value. */
  async appendMany(runId: string, events: Array<{ event: string; data: unknown }>, options: { ttlMs: number }): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const now = nowIso();
    const rows = await query<{ id: string; event: string; data: unknown }>(
      this.pool,
      `WITH counter AS (
         INSERT INTO ${this.t.runEventCounters} AS c (run_id, last_id) VALUES ($1, $2)
         ON CONFLICT (run_id) DO UPDATE SET last_id = c.last_id + $2
         RETURNING last_id)
       INSERT INTO ${this.t.runEvents} (run_id, id, event, data, created_at, expires_at)
       SELECT $1, counter.last_id - $2 + e.ord, e.event, e.data, $5, $6
       FROM counter, unnest($3::text[], $4::jsonb[]) WITH ORDINALITY AS e(event, data, ord)
       RETURNING id::text AS id, event, data`,
      [
        runId,
        events.length,
        events.map((e) => e.event),
        events.map((e) => this.seal.json("run_events", "data", e.data)),
        now,
        addMs(now, options.ttlMs),
      ],
    );
    return this.stored(rows).sort((a, b) => Number(a.id) - Number(b.id));
  }

  async list(runId: string, options?: { after?: string; limit?: number }): Promise<StoredEvent[]> {
    const values: unknown[] = [runId, nowIso()];
    // Ordered by the bigint column (`e.id`): `ORDER BY id` would sort the text alias (1, 10, 2, ...).
    let sql = `SELECT e.id::text AS id, e.event, e.data FROM ${this.t.runEvents} e WHERE e.run_id = $1 AND e.expires_at > $2`;
    if (options?.after !== undefined) {
      // As the memory driver compares numbers: a non-numeric id matches nothing.
      const after = Number(options.after);
      if (Number.isNaN(after)) return [];
      values.push(String(Math.floor(after)));
      sql += ` AND e.id > $${values.length}::bigint`;
    }
    sql += ` ORDER BY e.id`;
    if (options?.limit !== undefined) {
      values.push(Math.max(0, Math.floor(options.limit)));
      sql += ` LIMIT $${values.length}`;
    }
    return this.stored(await query<StoredEvent>(this.pool, sql, values));
  }

  private stored(rows: StoredEvent[]): StoredEvent[] {
    return rows.map((r) => ({ id: r.id, event: r.event, data: this.seal.open("run_events", "data", r.data) ?? null }));
  }

  /** From the run's counter row, which outlives expiry and deletion (ids are never reused). */
  async lastId(runId: string): Promise<string | null> {
    const [row] = await query<{ last_id: string }>(
      this.pool,
      `SELECT last_id::text AS last_id FROM ${this.t.runEventCounters} WHERE run_id = $1`,
      [runId],
    );
    return row?.last_id ?? null;
  }

  async deleteExpired(now: string): Promise<number> {
    return queryCount(this.pool, `DELETE FROM ${this.t.runEvents} WHERE expires_at < $1`, [now]);
  }

  async deleteForRun(runId: string): Promise<number> {
    return queryCount(this.pool, `DELETE FROM ${this.t.runEvents} WHERE run_id = $1`, [runId]);
  }
}
