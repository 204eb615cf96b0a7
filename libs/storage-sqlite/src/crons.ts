import {
  ConflictError,
  nowIso,
  stringifyWire,
  type Cron,
  type CronPatch,
  type CronRepo,
  type CronSearch,
  type NewCron,
} from "@agent-server/core";
import { fromRow, intOr, isUniqueViolation, sortDir, Statements, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";

interface CronRow {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  payload: string;
  metadata: string;
  user_id: string | null;
  end_time: string | null;
  next_run_date: string | null;
  on_run_completed: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  "cron_id, assistant_id, thread_id, schedule, payload, metadata, user_id, end_time, next_run_date, on_run_completed, enabled, created_at, updated_at";
const SORT_COLUMNS = new Set(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"]);

export class SqliteCronRepo implements CronRepo {
  private readonly s: Statements;
  private readonly byId;
  private readonly insertRow;
  private readonly updateRow;
  private readonly due;
  private readonly advanceStmt;
  private readonly c: TableCodec<"crons">;

  constructor(
    private readonly db: Db,
    codecs: TableCodecs,
  ) {
    this.c = codecs.crons;
    this.s = new Statements(db);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM crons WHERE cron_id = ?`);
    this.insertRow = db.prepare(
      `INSERT INTO crons (${COLUMNS}) VALUES (@cron_id, @assistant_id, @thread_id, @schedule, @payload, @metadata,
         @user_id, @end_time, @next_run_date, @on_run_completed, @enabled, @created_at, @updated_at)`,
    );
    this.updateRow = db.prepare(
      `UPDATE crons SET schedule = @schedule, payload = @payload, metadata = @metadata, user_id = @user_id,
         end_time = @end_time, next_run_date = @next_run_date, on_run_completed = @on_run_completed,
         enabled = @enabled, updated_at = @updated_at
       WHERE cron_id = @cron_id`,
    );
    // Partial index crons_due (next_run_date WHERE enabled = 1).
    this.due = db.prepare(
      `SELECT ${COLUMNS} FROM crons WHERE enabled = 1 AND next_run_date IS NOT NULL AND next_run_date <= ?
       ORDER BY next_run_date, seq LIMIT ?`,
    );
    this.advanceStmt = db.prepare("UPDATE crons SET next_run_date = ?, updated_at = ? WHERE cron_id = ? AND next_run_date = ?");
  }

  async create(input: NewCron): Promise<Cron> {
    const now = nowIso();
    const row: CronRow = {
      cron_id: input.cron_id,
      assistant_id: input.assistant_id,
      thread_id: input.thread_id ?? null,
      schedule: input.schedule,
      payload: this.c.text("payload", input.payload ?? {}),
      metadata: this.c.text("metadata", input.metadata ?? {}),
      user_id: input.user_id ?? null,
      end_time: input.end_time ?? null,
      next_run_date: input.next_run_date,
      on_run_completed: input.on_run_completed ?? "delete",
      enabled: input.enabled === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    try {
      this.insertRow.run(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`cron ${input.cron_id} already exists`);
      throw err;
    }
    return this.toCron(row);
  }

  private toCron(row: CronRow): Cron {
    return { ...fromRow<Cron>(row, { payload: {}, metadata: {} }, this.c), enabled: row.enabled === 1 };
  }

  async get(cronId: string): Promise<Cron | null> {
    const row = this.byId.get(cronId) as CronRow | undefined;
    return row ? this.toCron(row) : null;
  }

  async update(cronId: string, patch: CronPatch): Promise<Cron | null> {
    const payload = patch.payload !== undefined ? this.c.text("payload", patch.payload) : undefined;
    const metadata = patch.metadata !== undefined ? this.c.text("metadata", patch.metadata) : undefined;
    const tx = this.db.transaction(() => {
      const current = this.byId.get(cronId) as CronRow | undefined;
      if (!current) return null;
      const next: CronRow = {
        ...current,
        schedule: patch.schedule ?? current.schedule,
        payload: payload ?? current.payload,
        metadata: metadata ?? current.metadata,
        user_id: patch.user_id !== undefined ? patch.user_id : current.user_id,
        end_time: patch.end_time !== undefined ? patch.end_time : current.end_time,
        next_run_date: patch.next_run_date !== undefined ? patch.next_run_date : current.next_run_date,
        on_run_completed: patch.on_run_completed ?? current.on_run_completed,
        enabled: patch.enabled === undefined ? current.enabled : patch.enabled ? 1 : 0,
        updated_at: nowIso(),
      };
      this.updateRow.run(next);
      return next;
    });
    const row = tx.immediate();
    return row ? this.toCron(row) : null;
  }

  async delete(cronId: string): Promise<boolean> {
    return this.s.get("DELETE FROM crons WHERE cron_id = ?").run(cronId).changes > 0;
  }

  async search(query: CronSearch): Promise<Cron[]> {
    const { where, params } = buildWhere(query);
    const column = query.sort_by && SORT_COLUMNS.has(query.sort_by) ? query.sort_by : "created_at";
    const dir = sortDir(query.sort_order);
    const sql = `SELECT ${COLUMNS} FROM crons ${where} ORDER BY ${column} ${dir}, seq ${dir} LIMIT ? OFFSET ?`;
    return (this.s.get(sql).all(...params, intOr(query.limit, 10), intOr(query.offset, 0)) as CronRow[]).map((row) => this.toCron(row));
  }

  async count(query: Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    const { where, params } = buildWhere(query);
    return (this.s.get(`SELECT COUNT(*) AS n FROM crons ${where}`).get(...params) as { n: number }).n;
  }

  async listDue(now: string, limit: number): Promise<Cron[]> {
    return (this.due.all(now, intOr(limit, 10)) as CronRow[]).map((row) => this.toCron(row));
  }

  /** Compare-and-set on next_run_date: one statement, so exactly one racing caller changes the row. */
  async advance(cronId: string, expected: string, next: string | null): Promise<boolean> {
    return this.advanceStmt.run(next, nowIso(), cronId, expected).changes > 0;
  }
}

/** assistant_id / thread_id use their indexes; the auth filter is evaluated per remaining row. */
function buildWhere(query: Omit<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">) {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (query.assistant_id !== undefined) {
    clauses.push("assistant_id = ?");
    params.push(query.assistant_id);
  }
  if (query.thread_id !== undefined) {
    clauses.push("thread_id = ?");
    params.push(query.thread_id);
  }
  if (query.enabled !== undefined) {
    clauses.push("enabled = ?");
    params.push(query.enabled ? 1 : 0);
  }
  if (query.filter !== undefined) {
    clauses.push("as_auth_match(metadata, ?, 'crons.metadata')");
    params.push(stringifyWire(query.filter));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
}
