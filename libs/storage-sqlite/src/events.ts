import { addMs, nowIso, stringifyWire, type EventRepo, type StoredEvent } from "@agent-server/core";
import { intOr, parseJson, type Db } from "./db.js";

interface EventRow {
  event_id: number;
  event: string;
  data: string;
}

export class SqliteEventRepo implements EventRepo {
  private readonly insert;
  private readonly listAll;
  private readonly listAfter;
  private readonly expired;
  private readonly forRun;
  private readonly last;

  constructor(db: Db) {
    // One statement computes the next per-run id (MAX over the (run_id, event_id) unique index) and
    // inserts it, so concurrent appenders (even in other processes) never reuse an id.
    this.insert = db.prepare(
      `INSERT INTO events (run_id, event_id, event, data, expires_at)
       SELECT ?, COALESCE(MAX(event_id), 0) + 1, ?, ?, ? FROM events WHERE run_id = ?
       RETURNING event_id`,
    );
    this.listAll = db.prepare(
      `SELECT event_id, event, data FROM events WHERE run_id = ? AND expires_at >= ?
       ORDER BY event_id LIMIT ?`,
    );
    this.listAfter = db.prepare(
      `SELECT event_id, event, data FROM events WHERE run_id = ? AND event_id > ? AND expires_at >= ?
       ORDER BY event_id LIMIT ?`,
    );
    // Index events_expires.
    this.expired = db.prepare("DELETE FROM events WHERE expires_at < ?");
    this.forRun = db.prepare("DELETE FROM events WHERE run_id = ?");
    // The (run_id, event_id) unique index answers it.
    this.last = db.prepare("SELECT MAX(event_id) AS last FROM events WHERE run_id = ?");
  }

  async append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent> {
    const text = stringifyWire(data === undefined ? null : data);
    const row = this.insert.get(runId, event, text, addMs(nowIso(), options.ttlMs), runId) as { event_id: number };
    return toEvent({ event_id: row.event_id, event, data: text });
  }

  async list(runId: string, options?: { after?: string; limit?: number }): Promise<StoredEvent[]> {
    const now = nowIso();
    const limit = options?.limit === undefined ? -1 : intOr(options.limit, 0);
    let rows: EventRow[];
    if (options?.after !== undefined && options.after !== "") {
      const after = Number.parseInt(options.after, 10);
      rows = this.listAfter.all(runId, Number.isFinite(after) ? after : 0, now, limit) as EventRow[];
    } else {
      rows = this.listAll.all(runId, now, limit) as EventRow[];
    }
    return rows.map(toEvent);
  }

  async lastId(runId: string): Promise<string | null> {
    const row = this.last.get(runId) as { last: number | null } | undefined;
    return row?.last == null ? null : String(row.last);
  }

  async deleteExpired(now: string): Promise<number> {
    return this.expired.run(now).changes;
  }

  async deleteForRun(runId: string): Promise<number> {
    return this.forRun.run(runId).changes;
  }
}

function toEvent(row: EventRow): StoredEvent {
  return { id: String(row.event_id), event: row.event, data: parseJson(row.data, null) };
}
