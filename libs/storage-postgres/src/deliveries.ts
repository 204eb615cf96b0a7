import { addMs, ConflictError, nowIso, type Delivery, type DeliveryRepo, type NewDelivery } from "@agent-server/core";
import type pg from "pg";
import { pgCode, query, queryCount, UNIQUE_VIOLATION, type Tables } from "./db.js";
import type { Sealer } from "./sealing.js";

const COLUMNS = `delivery_id, kind, url, headers, payload, run_id, status, attempts, next_attempt_at, last_error, created_at, updated_at`;
const prefixed = (alias: string) =>
  COLUMNS.split(", ")
    .map((c) => `${alias}.${c}`)
    .join(", ");

export class PostgresDeliveryRepo implements DeliveryRepo {
  constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly seal: Sealer,
  ) {}

  async enqueue(input: NewDelivery): Promise<Delivery> {
    const now = nowIso();
    const values = [
      input.delivery_id,
      input.kind,
      input.url,
      this.seal.json("deliveries", "headers", input.headers ?? {}),
      this.seal.json("deliveries", "payload", input.payload),
      input.run_id ?? null,
      input.next_attempt_at ?? now,
      now,
    ];
    try {
      const [row] = await query<Delivery>(
        this.pool,
        `INSERT INTO ${this.t.deliveries} (${COLUMNS})
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, 'pending', 0, $7, NULL, $8, $8) RETURNING ${COLUMNS}`,
        values,
      );
      return this.toDelivery(row!);
    } catch (error) {
      if (pgCode(error) === UNIQUE_VIOLATION) throw new ConflictError(`delivery ${input.delivery_id} already exists`);
      throw error;
    }
  }

  async get(deliveryId: string): Promise<Delivery | null> {
    const [row] = await query<Delivery>(this.pool, `SELECT ${COLUMNS} FROM ${this.t.deliveries} WHERE delivery_id = $1`, [deliveryId]);
    return row ? this.toDelivery(row) : null;
  }

  /** One statement: pick due rows `FOR UPDATE SKIP LOCKED`, push them out by the lease, count the attempt. */
  async claimDue(options: { now: string; limit: number; leaseMs: number }): Promise<Delivery[]> {
    const rows = await query<Delivery & { due: string; seq: string }>(
      this.pool,
      `WITH picked AS (
         SELECT delivery_id, next_attempt_at AS due, seq FROM ${this.t.deliveries}
          WHERE status = 'pending' AND next_attempt_at <= $1
          ORDER BY next_attempt_at, seq LIMIT $2
          FOR UPDATE SKIP LOCKED)
       UPDATE ${this.t.deliveries} d SET next_attempt_at = $3, attempts = d.attempts + 1, updated_at = $4
         FROM picked WHERE d.delivery_id = picked.delivery_id
       RETURNING ${prefixed("d")}, picked.due, picked.seq`,
      [options.now, Math.max(0, Math.floor(options.limit)), addMs(options.now, options.leaseMs), nowIso()],
    );
    rows.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : Number(a.seq) - Number(b.seq)));
    return rows.map(({ due: _due, seq: _seq, ...delivery }) => this.toDelivery(delivery));
  }

  private toDelivery(row: Delivery): Delivery {
    const delivery = this.seal.row("deliveries", row);
    return { ...delivery, payload: delivery.payload ?? null };
  }

  async markDelivered(deliveryId: string): Promise<void> {
    await query(this.pool, `UPDATE ${this.t.deliveries} SET status = 'delivered', payload = NULL, updated_at = $2 WHERE delivery_id = $1`, [
      deliveryId,
      nowIso(),
    ]);
  }

  async markRetry(deliveryId: string, options: { nextAttemptAt: string; error: string }): Promise<void> {
    await query(
      this.pool,
      `UPDATE ${this.t.deliveries} SET next_attempt_at = $2, last_error = $3, updated_at = $4 WHERE delivery_id = $1`,
      [deliveryId, options.nextAttemptAt, options.error, nowIso()],
    );
  }

  async markFailed(deliveryId: string, error: string): Promise<void> {
    await query(
      this.pool,
      `UPDATE ${this.t.deliveries} SET status = 'failed', payload = NULL, last_error = $2, updated_at = $3 WHERE delivery_id = $1`,
      [deliveryId, error, nowIso()],
    );
  }

  async purgeFinished(before: string): Promise<number> {
    return queryCount(this.pool, `DELETE FROM ${this.t.deliveries} WHERE status IN ('delivered', 'failed') AND updated_at < $1`, [before]);
  }
}
