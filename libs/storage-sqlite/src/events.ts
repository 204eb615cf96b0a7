import { addMs, nowIso, type EventRepo, type StoredEvent } from "@agent-server/core";
import { intOr, returningRow, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";

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
  private readonly countExpired;
  private readonly countRun;
  private readonly last;
  private readonly deleteExpiredCounted: (now: string) => number;
  private readonly insertMany: (runId: string, events: Array<{ event: string; data: unknown }>, expires: string) => StoredEvent[];
  private readonly deleteRunCounted: (runId: string) => number;
  private readonly c: TableCodec<"events">;

  constructor(db: Db, codecs: TableCodecs) {
    this.c = codecs.events;
    // One statement computes the next per-run id (after both the highest stored id, through the
    // (run_id, event_id) unique index, and the counter of deleted ones) and inserts it, so concurrent
    // appenders (even in other processes) never reuse an id.
    this.insert = db.prepare(
      `INSERT INTO events (run_id, event_id, event, data, expires_at)
       SELECT @run, MAX(COALESCE((SELECT MAX(event_id) FROM events WHERE run_id = @run), 0),
                        COALESCE((SELECT last_id FROM event_counters WHERE run_id = @run), 0)) + 1, @event, @data, @expires
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
    // Before events are deleted: their streams' highest ids, so later appends continue after them.
    this.countExpired = db.prepare(
      `INSERT INTO event_counters (run_id, last_id)
       SELECT run_id, MAX(event_id) FROM events WHERE run_id IN (SELECT DISTINCT run_id FROM events WHERE expires_at < ?) GROUP BY run_id
       ON CONFLICT (run_id) DO UPDATE SET last_id = MAX(last_id, excluded.last_id)`,
    );
    this.countRun = db.prepare(
      `INSERT INTO event_counters (run_id, last_id) SELECT run_id, MAX(event_id) FROM events WHERE run_id = ? GROUP BY run_id
       ON CONFLICT (run_id) DO UPDATE SET last_id = MAX(last_id, excluded.last_id)`,
    );
    // The (run_id, event_id) unique index and the counter's primary key answer it.
    this.last = db.prepare(
      `SELECT MAX(COALESCE((SELECT MAX(event_id) FROM events WHERE run_id = @run), 0),
                  COALESCE((SELECT last_id FROM event_counters WHERE run_id = @run), 0)) AS last`,
    );
    this.insertMany = db.transaction((runId: string, events: Array<{ event: string; data: unknown }>, expires: string) =>
      events.map(({ event, data }) => {
        const text = this.c.text("data", data === undefined ? null : data);
        const row = returningRow<{ event_id: number }>(this.insert, { run: runId, event, data: text, expires })!;
        return this.toEvent({ event_id: row.event_id, event, data: text });
      }),
    );
    this.deleteExpiredCounted = db.transaction((now: string) => {
      this.countExpired.run(now);
      return this.expired.run(now).changes;
    });
    this.deleteRunCounted = db.transaction((runId: string) => {
      this.countRun.run(runId);
      return this.forRun.run(runId).changes;
    });
  }

  async append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent> {
    const text = this.c.text("data", data === undefined ? null : data);
    const row = returningRow<{ event_id: number }>(this.insert, {
      run: runId,
      event,
      data: text,
      expires: addMs(nowIso(), options.ttlMs),
    })!;
    return this.toEvent({ event_id: row.event_id, event, data: text });
  }

  private toEvent(row: EventRow): StoredEvent {
    return { id: String(row.event_id), event: row.event, data: this.c.value("data", row.data, null) };
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
    return rows.map((row) => this.toEvent(row));
  }

  /** One transaction (one commit) for the batch; the insert numbers each row after the previous one. */
  async appendMany(runId: string, events: Array<{ event: string; data: unknown }>, options: { ttlMs: number }): Promise<StoredEvent[]> {
    const expires = addMs(nowIso(), options.ttlMs);
    return this.insertMany(runId, events, expires);
  }

  async lastId(runId: string): Promise<string | null> {
    const row = this.last.get({ run: runId }) as { last: number } | undefined;
    return row && row.last > 0 ? String(row.last) : null;
  }

  async deleteExpired(now: string): Promise<number> {
    return this.deleteExpiredCounted(now);
  }

  async deleteForRun(runId: string): Promise<number> {
    return this.deleteRunCounted(runId);
  }
}
