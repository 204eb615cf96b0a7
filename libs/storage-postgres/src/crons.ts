import { ConflictError, nowIso, type Cron, type CronPatch, type CronRepo, type CronSearch, type NewCron } from "@agent-server/core";
import type pg from "pg";
import { limitOffset, Params, pgCode, query, queryCount, UNIQUE_VIOLATION, whereClause, type Tables } from "./db.js";
import { authFilterSql } from "./filters-sql.js";
import type { Sealer } from "./sealing.js";

const COLUMNS = `cron_id, assistant_id, thread_id, schedule, payload, metadata, user_id, end_time, next_run_date,
  on_run_completed, enabled, created_at, updated_at`;
const SORTABLE = new Set(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"]);
const TIME_FIELDS = new Set(["next_run_date", "end_time", "created_at", "updated_at"]);

type SearchFilter = Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">;

export class PostgresCronRepo implements CronRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  async create(input: NewCron): Promise<Cron> {
    const now = nowIso();
    try {
      const [row] = await query<Cron>(
        this.pool,
        `INSERT INTO ${this.t.crons} (${COLUMNS})
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $11, $12, $12) RETURNING ${COLUMNS}`,
        [
          input.cron_id,
          input.assistant_id,
          input.thread_id ?? null,
          input.schedule,
          this.seal.json("crons", "payload", input.payload ?? {}),
          this.seal.json("crons", "metadata", input.metadata ?? {}),
          input.user_id ?? null,
          input.end_time ?? null,
          input.next_run_date,
          input.on_run_completed ?? "delete",
          input.enabled ?? true,
          now,
        ],
      );
      return this.seal.row("crons", row!);
    } catch (error) {
      if (pgCode(error) === UNIQUE_VIOLATION) throw new ConflictError(`cron ${input.cron_id} already exists`);
      throw error;
    }
  }

  async get(cronId: string): Promise<Cron | null> {
    const [row] = await query<Cron>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.crons} WHERE cron_id = $1`, [cronId]);
    return row ? this.seal.row("crons", row) : null;
  }

  /** Fields in the patch replace the stored ones (metadata and payload too). */
  async update(cronId: string, patch: CronPatch): Promise<Cron | null> {
    const params = new Params([cronId, nowIso()]);
    const sets = [`updated_at = $2`];
    if (patch.schedule !== undefined) sets.push(`schedule = ${params.add(patch.schedule)}`);
    if (patch.payload !== undefined) sets.push(`payload = ${params.add(this.seal.json("crons", "payload", patch.payload))}::jsonb`);
    if (patch.metadata !== undefined) sets.push(`metadata = ${params.add(this.seal.json("crons", "metadata", patch.metadata))}::jsonb`);
    if (patch.user_id !== undefined) sets.push(`user_id = ${params.add(patch.user_id)}`);
    if (patch.end_time !== undefined) sets.push(`end_time = ${params.add(patch.end_time)}::timestamptz`);
    if (patch.next_run_date !== undefined) sets.push(`next_run_date = ${params.add(patch.next_run_date)}::timestamptz`);
    if (patch.on_run_completed !== undefined) sets.push(`on_run_completed = ${params.add(patch.on_run_completed)}`);
    if (patch.enabled !== undefined) sets.push(`enabled = ${params.add(patch.enabled)}`);
    const [row] = await query<Cron>(
      this.pool,
      `UPDATE ${this.t.crons} SET ${sets.join(", ")} WHERE cron_id = $1 RETURNING ${COLUMNS}`,
      params.values,
    );
    return row ? this.seal.row("crons", row) : null;
  }

  async delete(cronId: string): Promise<boolean> {
    return (await queryCount(this.pool, `DELETE FROM ${this.t.crons} WHERE cron_id = $1`, [cronId])) > 0;
  }

  async search(q: CronSearch): Promise<Cron[]> {
    const params = new Params();
    const where = this.where(params, q);
    const field = q.sort_by && SORTABLE.has(q.sort_by) ? q.sort_by : "created_at";
    const collate = TIME_FIELDS.has(field) ? "" : ` COLLATE "C"`;
    const dir = q.sort_order === "asc" ? "ASC" : "DESC";
    // Nulls sort first ascending (last descending), as the memory driver does.
    const nulls = q.sort_order === "asc" ? "NULLS FIRST" : "NULLS LAST";
    const rows = await query<Cron>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.t.crons} ${whereClause(where)}
       ORDER BY ${field}${collate} ${dir} ${nulls}, seq ${dir} ${limitOffset(params, q.limit, q.offset, 10)}`,
      params.values,
    );
    return this.seal.rows("crons", rows);
  }

  async count(q: SearchFilter): Promise<number> {
    const params = new Params();
    const where = this.where(params, q);
    const [row] = await query<{ n: string }>(this.pool, `SELECT count(*) AS n FROM ${this.t.crons} ${whereClause(where)}`, params.values);
    return Number(row!.n);
  }

  async listDue(now: string, limit: number): Promise<Cron[]> {
    const rows = await query<Cron>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.t.crons}
        WHERE enabled AND next_run_date IS NOT NULL AND next_run_date <= $1
        ORDER BY next_run_date, seq LIMIT $2`,
      [now, Math.max(0, Math.floor(limit))],
    );
    return this.seal.rows("crons", rows);
  }

  /** Conditional UPDATE: of several processes racing for one tick, exactly one matches `expected`. */
  async advance(cronId: string, expected: string, next: string | null): Promise<boolean> {
    const n = await queryCount(
      this.pool,
      `UPDATE ${this.t.crons} SET next_run_date = $3::timestamptz, updated_at = $4
        WHERE cron_id = $1 AND next_run_date = $2::timestamptz`,
      [cronId, expected, next, nowIso()],
    );
    return n > 0;
  }

  private where(params: Params, q: SearchFilter): string[] {
    const where: string[] = [];
    if (q.assistant_id !== undefined) where.push(`assistant_id = ${params.add(q.assistant_id)}`);
    if (q.thread_id !== undefined) where.push(`thread_id = ${params.add(q.thread_id)}`);
    if (q.enabled !== undefined) where.push(`enabled = ${params.add(q.enabled)}`);
    where.push(...authFilterSql(params, "metadata", q.filter));
    return where;
  }
}
