import type { Delivery, DeliveryKind } from "../model.js";

export interface NewDelivery {
  delivery_id: string;
  kind: DeliveryKind;
  url: string;
  headers?: Record<string, string>;
  payload: unknown;
  run_id?: string | null;
  /** Defaults to now. */
  next_attempt_at?: string;
}

/**
 * The outbox for webhooks and A2A push notifications. A delivery is written before it is attempted,
 * so it survives a restart; its payload is cleared once it is delivered or given up.
 */
export interface DeliveryRepo {
  enqueue(input: NewDelivery): Promise<Delivery>;
  get(deliveryId: string): Promise<Delivery | null>;
  /**
   * Atomically takes up to `limit` pending deliveries due at `now`, oldest due first, pushing their
   * next_attempt_at to now + leaseMs and counting the attempt, so no two callers send the same one.
   */
  claimDue(options: { now: string; limit: number; leaseMs: number }): Promise<Delivery[]>;
  /** Status delivered, payload cleared. */
  markDelivered(deliveryId: string): Promise<void>;
  /** Stays pending; tried again at `nextAttemptAt`. */
  markRetry(deliveryId: string, options: { nextAttemptAt: string; error: string }): Promise<void>;
  /** Given up: status failed, payload cleared, error kept. */
  markFailed(deliveryId: string, error: string): Promise<void>;
  /** Deletes delivered and failed deliveries last updated before `before`; returns how many. */
  purgeFinished(before: string): Promise<number>;
}
