import { addMs, ConflictError, nowIso, type Delivery, type DeliveryRepo, type NewDelivery } from "@agent-server/core";
import { compareValues, wireIn, wireObject, wireOut, type MemoryState } from "./state.js";

export class MemoryDeliveryRepo implements DeliveryRepo {
  constructor(private readonly state: MemoryState) {}

  async enqueue(input: NewDelivery): Promise<Delivery> {
    const now = nowIso();
    const delivery: Delivery = {
      delivery_id: input.delivery_id,
      kind: input.kind,
      url: input.url,
      headers: wireObject(input.headers, {}),
      payload: wireIn(input.payload),
      run_id: input.run_id ?? null,
      status: "pending",
      attempts: 0,
      next_attempt_at: input.next_attempt_at ?? now,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    if (this.state.deliveries.has(delivery.delivery_id)) {
      throw new ConflictError(`delivery ${delivery.delivery_id} already exists`);
    }
    this.state.deliveries.set(delivery.delivery_id, { delivery, seq: this.state.nextSeq() });
    return wireOut(delivery);
  }

  async get(deliveryId: string): Promise<Delivery | null> {
    const record = this.state.deliveries.get(deliveryId);
    return record ? wireOut(record.delivery) : null;
  }

  /** O(deliveries) scan; select and lease with no await in between. */
  async claimDue(options: { now: string; limit: number; leaseMs: number }): Promise<Delivery[]> {
    const due = [...this.state.deliveries.values()]
      .filter((r) => r.delivery.status === "pending" && r.delivery.next_attempt_at <= options.now)
      .sort((a, b) => compareValues(a.delivery.next_attempt_at, b.delivery.next_attempt_at) || a.seq - b.seq)
      .slice(0, Math.max(0, options.limit));
    const leaseEnd = addMs(options.now, options.leaseMs);
    const updatedAt = nowIso();
    for (const record of due) {
      record.delivery.next_attempt_at = leaseEnd;
      record.delivery.attempts += 1;
      record.delivery.updated_at = updatedAt;
    }
    return due.map((r) => wireOut(r.delivery));
  }

  async markDelivered(deliveryId: string): Promise<void> {
    this.patch(deliveryId, { status: "delivered", payload: null });
  }

  async markRetry(deliveryId: string, options: { nextAttemptAt: string; error: string }): Promise<void> {
    this.patch(deliveryId, { status: "pending", next_attempt_at: options.nextAttemptAt, last_error: options.error });
  }

  async markFailed(deliveryId: string, error: string): Promise<void> {
    this.patch(deliveryId, { status: "failed", payload: null, last_error: error });
  }

  /** O(deliveries) scan. */
  async purgeFinished(before: string): Promise<number> {
    let purged = 0;
    for (const [id, record] of this.state.deliveries) {
      const { status, updated_at } = record.delivery;
      if ((status === "delivered" || status === "failed") && updated_at < before) {
        this.state.deliveries.delete(id);
        purged += 1;
      }
    }
    return purged;
  }

  /** Unknown ids are a no-op. */
  private patch(deliveryId: string, changes: Partial<Delivery>): void {
    const record = this.state.deliveries.get(deliveryId);
    if (record) record.delivery = { ...record.delivery, ...changes, updated_at: nowIso() };
  }
}
