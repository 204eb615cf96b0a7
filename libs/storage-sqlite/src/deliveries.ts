import { addMs, ConflictError, nowIso, type Delivery, type DeliveryRepo, type NewDelivery } from "@agent-server/core";
import { fromRow, intOr, isUniqueViolation, returningRow, type Db } from "./db.js";
import type { TableCodec, TableCodecs } from "./sealing.js";

interface DeliveryRow {
  delivery_id: string;
  kind: string;
  url: string;
  headers: string;
  payload: string | null;
  run_id: string | null;
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "delivery_id, kind, url, headers, payload, run_id, status, attempts, next_attempt_at, last_error, created_at, updated_at";

export class SqliteDeliveryRepo implements DeliveryRepo {
  private readonly insertRow;
  private readonly byId;
  private readonly dueIds;
  private readonly take;
  private readonly delivered;
  private readonly retry;
  private readonly failed;
  private readonly purge;
  private readonly c: TableCodec<"deliveries">;

  constructor(
    private readonly db: Db,
    codecs: TableCodecs,
  ) {
    this.c = codecs.deliveries;
    this.insertRow = db.prepare(
      `INSERT INTO deliveries (${COLUMNS}) VALUES (@delivery_id, @kind, @url, @headers, @payload, @run_id, @status,
         @attempts, @next_attempt_at, @last_error, @created_at, @updated_at)`,
    );
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM deliveries WHERE delivery_id = ?`);
    // Index deliveries_due (status, next_attempt_at, seq).
    this.dueIds = db.prepare(
      `SELECT delivery_id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, seq LIMIT ?`,
    );
    this.take = db.prepare(
      `UPDATE deliveries SET next_attempt_at = ?, attempts = attempts + 1, updated_at = ?
       WHERE delivery_id = ? AND status = 'pending' RETURNING ${COLUMNS}`,
    );
    this.delivered = db.prepare("UPDATE deliveries SET status = 'delivered', payload = NULL, updated_at = ? WHERE delivery_id = ?");
    this.retry = db.prepare(
      "UPDATE deliveries SET next_attempt_at = ?, last_error = ?, updated_at = ? WHERE delivery_id = ? AND status = 'pending'",
    );
    this.failed = db.prepare(
      "UPDATE deliveries SET status = 'failed', payload = NULL, last_error = ?, updated_at = ? WHERE delivery_id = ?",
    );
    // Index deliveries_finished (status, updated_at).
    this.purge = db.prepare("DELETE FROM deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?");
  }

  async enqueue(input: NewDelivery): Promise<Delivery> {
    const now = nowIso();
    const row: DeliveryRow = {
      delivery_id: input.delivery_id,
      kind: input.kind,
      url: input.url,
      headers: this.c.text("headers", input.headers ?? {}),
      payload: this.c.text("payload", input.payload === undefined ? null : input.payload),
      run_id: input.run_id ?? null,
      status: "pending",
      attempts: 0,
      next_attempt_at: input.next_attempt_at ?? now,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    try {
      this.insertRow.run(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`delivery ${input.delivery_id} already exists`);
      throw err;
    }
    return this.toDelivery(row);
  }

  private toDelivery(row: DeliveryRow): Delivery {
    return fromRow(row, { headers: {}, payload: null }, this.c);
  }

  async get(deliveryId: string): Promise<Delivery | null> {
    const row = this.byId.get(deliveryId) as DeliveryRow | undefined;
    return row ? this.toDelivery(row) : null;
  }

  /** One IMMEDIATE transaction: select due ids, then push each one's next attempt past the lease. */
  async claimDue(options: { now: string; limit: number; leaseMs: number }): Promise<Delivery[]> {
    const limit = intOr(options.limit, 0);
    if (limit === 0) return [];
    const tx = this.db.transaction(() => {
      const ids = this.dueIds.all(options.now, limit) as { delivery_id: string }[];
      const until = addMs(options.now, options.leaseMs);
      const updatedAt = nowIso();
      const out: DeliveryRow[] = [];
      for (const { delivery_id } of ids) {
        const row = returningRow<DeliveryRow>(this.take, until, updatedAt, delivery_id);
        if (row) out.push(row);
      }
      return out;
    });
    return tx.immediate().map((row) => this.toDelivery(row));
  }

  async markDelivered(deliveryId: string): Promise<void> {
    this.delivered.run(nowIso(), deliveryId);
  }

  async markRetry(deliveryId: string, options: { nextAttemptAt: string; error: string }): Promise<void> {
    this.retry.run(options.nextAttemptAt, options.error, nowIso(), deliveryId);
  }

  async markFailed(deliveryId: string, error: string): Promise<void> {
    this.failed.run(error, nowIso(), deliveryId);
  }

  async purgeFinished(before: string): Promise<number> {
    return this.purge.run(before).changes;
  }
}
