import { v4 as uuidv4 } from "uuid";
import {
  addMs,
  checkOutboundUrl,
  nowIso,
  outsideTrace,
  toWireJson,
  type Delivery,
  type DefaultValues,
  type OutboundUrlPolicy,
  type Run,
  type Storage,
} from "@agent-server/core";
import { outboundUrlPolicy } from "../config/webhooks.js";
import type { DeliveryOutcome } from "../observe/index.js";
import { errorPayload } from "../runs/settlement-values.js";
import { traceDelivery, withDeliveryTraceparent } from "../tracing/index.js";
import { guardedPost, OutboundUrlRefusedError, type ResolveHost } from "./guarded-post.js";
import { signatureHeaders } from "./signing.js";

export interface OutboxOptions {
  /** How often due deliveries are looked for. */
  pollMs: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Attempts before a delivery is given up (status failed, payload cleared). */
  maxAttempts: number;
  /** Per-request timeout. */
  timeoutMs: number;
}

/**
 * The server's own HTTP app, called in-process. A webhook whose URL is a path ("/hooks/done") is POSTed
 * through it rather than over the network, as the official server delivers relative webhooks (so they
 * reach the project's `http.app` routes).
 */
export type LoopbackFetch = (request: Request) => Response | Promise<Response>;

export interface OutboxDelivery {
  /** The server's own app, for relative webhooks ("/hooks/done"). */
  loopback?: LoopbackFetch;
  /** Where deliveries may go; default: `serve` without a `webhooks.url` section. */
  urlPolicy?: OutboundUrlPolicy;
  /** A delivery refused by the URL policy (marked failed, never sent); console.warn when absent. */
  onRefused?: (delivery: Delivery, reason: string) => void;
  /** Each attempt's end, for metrics (`EngineObserver.deliveryFinished`). */
  onFinished?: (kind: Delivery["kind"], outcome: DeliveryOutcome) => void;
  /** A round of sending failed (storage unreachable); the next poll retries. console.error when absent. */
  onError?: (error: unknown) => void;
  /** How host names are resolved (default: the system resolver). */
  resolveHost?: ResolveHost;
  /** The Standard Webhooks HMAC key: every attempt is signed (`signatureHeaders`); none: unsigned. */
  signingKey?: Uint8Array;
}

export const DEFAULT_OUTBOX_OPTIONS: OutboxOptions = {
  pollMs: 1000,
  backoffMs: 1000,
  maxBackoffMs: 5 * 60_000,
  maxAttempts: 8,
  timeoutMs: 10_000,
};

/**
 * Webhooks (and A2A push notifications) go through the `DeliveryRepo` outbox: written first, then
 * POSTed with retry and backoff, so a restart or a receiver that is down loses nothing. A payload is
 * cleared once delivered or given up.
 *
 * Bodies by kind: `webhook` posts the payload object plus `webhook_sent_at` (as the official server
 * does); `a2a_push` posts the payload exactly as given — a string payload is the body verbatim (so a
 * serialized body survives drivers that store JSON re-ordered, e.g. jsonb), anything else its JSON.
 * Delivery headers are set over the default `content-type: application/json` (case-insensitively).
 * With a signing key, the Standard Webhooks headers go over those, made per attempt: `webhook-id` is
 * the delivery id (the same on every retry), the timestamp and signature are the attempt's own.
 */
export class WebhookOutbox {
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  readonly urlPolicy: OutboundUrlPolicy;

  constructor(
    private readonly storage: Storage,
    private readonly options: OutboxOptions = DEFAULT_OUTBOX_OPTIONS,
    private readonly delivery: OutboxDelivery = {},
  ) {
    this.urlPolicy = delivery.urlPolicy ?? outboundUrlPolicy(undefined, "serve");
  }

  /**
   * Why a user-given webhook or push URL may not be used, or undefined when it may: what the API
   * answers 422 (A2A: invalid params) with before anything is written. Names are resolved only when
   * sending, where every resolved address is checked again.
   */
  urlRefusal(url: string): string | undefined {
    const check = checkOutboundUrl(url, this.urlPolicy);
    return check.ok ? undefined : check.reason;
  }

  start(): void {
    this.timer ??= setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.draining;
  }

  /** The run payload as the official server posts it: the run plus its final values (and error). */
  async enqueueRunWebhook(url: string, run: Run, values: DefaultValues | null, error?: unknown): Promise<void> {
    const payload = { ...run, values, ...(error !== undefined ? { error: errorPayload(error).message } : {}) };
    await this.enqueue({ kind: "webhook", url, payload, runId: run.run_id });
  }

  /**
   * Writes a delivery and starts sending it. `deliveryId` (default a random one) makes enqueueing
   * idempotent: the driver refuses a second delivery with the same id (ConflictError).
   */
  async enqueue(input: {
    kind: Delivery["kind"];
    url: string;
    payload: unknown;
    runId?: string;
    headers?: Record<string, string>;
    deliveryId?: string;
  }): Promise<void> {
    await this.storage.deliveries.enqueue({
      delivery_id: input.deliveryId ?? uuidv4(),
      kind: input.kind,
      url: input.url,
      headers: withDeliveryTraceparent(input.headers),
      payload: toWireJson(input.payload),
      run_id: input.runId ?? null,
    });
    this.kick();
  }

  /** Sends what is due now; resolves when this round is done (tests and shutdown await it). */
  kick(): Promise<void> {
    this.draining ??= outsideTrace(() => this.drain())
      .catch((error: unknown) => (this.delivery.onError ?? ((e: unknown) => console.error("webhook delivery round failed", e)))(error))
      .finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async drain(): Promise<void> {
    while (true) {
      const due = await this.storage.deliveries.claimDue({ now: nowIso(), limit: 10, leaseMs: this.options.timeoutMs * 2 });
      if (due.length === 0) return;
      await Promise.all(due.map((delivery) => this.send(delivery)));
    }
  }

  /**
   * The URL is checked again at send time: the policy may have changed since the delivery was written
   * (a restart from `dev` to `serve`), and a name may now resolve elsewhere. A refused delivery is
   * marked failed at once, without a request and without retries.
   */
  private async send(delivery: Delivery): Promise<void> {
    let failure: string;
    const target = checkOutboundUrl(delivery.url, this.urlPolicy);
    if (!target.ok) return this.refuse(delivery, target.reason);
    try {
      const headers = new Headers({ "content-type": "application/json" });
      for (const [name, value] of Object.entries(delivery.headers ?? {})) headers.set(name, value);
      const body = deliveryBody(delivery);
      if (this.delivery.signingKey) {
        const signed = signatureHeaders(this.delivery.signingKey, delivery.delivery_id, body);
        for (const [name, value] of Object.entries(signed)) headers.set(name, value);
      }
      const init = { method: "POST", headers, body, signal: AbortSignal.timeout(this.options.timeoutMs) };
      const status = await traceDelivery(delivery, headers, () =>
        target.relative ? this.sendInProcess(target.path, init) : guardedPost(target.url, this.urlPolicy, init, this.delivery.resolveHost),
      );
      if (status >= 200 && status < 300) {
        await this.storage.deliveries.markDelivered(delivery.delivery_id);
        this.delivery.onFinished?.(delivery.kind, "delivered");
        return;
      }
      failure = `HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}`;
    } catch (error) {
      if (error instanceof OutboundUrlRefusedError) return this.refuse(delivery, error.message);
      failure = (error as Error).message;
    }
    if (delivery.attempts >= this.options.maxAttempts) {
      await this.storage.deliveries.markFailed(delivery.delivery_id, failure);
      this.delivery.onFinished?.(delivery.kind, "failed");
      return;
    }
    const delay = Math.min(this.options.backoffMs * 2 ** (delivery.attempts - 1), this.options.maxBackoffMs);
    await this.storage.deliveries.markRetry(delivery.delivery_id, { nextAttemptAt: addMs(nowIso(), delay), error: failure });
    this.delivery.onFinished?.(delivery.kind, "retried");
  }

  private async refuse(delivery: Delivery, reason: string): Promise<void> {
    await this.storage.deliveries.markFailed(delivery.delivery_id, `refused by the webhook URL policy: ${reason}`);
    this.delivery.onFinished?.(delivery.kind, "refused");
    if (this.delivery.onRefused) this.delivery.onRefused(delivery, reason);
    else console.warn(`${delivery.kind} delivery ${delivery.delivery_id} refused by the webhook URL policy: ${reason}`);
  }

  /**
   * A handler in this process may ignore the abort signal of its request, so the timeout is raced here:
   * a delivery still in flight when its claim's lease runs out would be sent twice.
   */
  private async sendInProcess(path: string, init: RequestInit & { signal: AbortSignal }): Promise<number> {
    const { loopback } = this.delivery;
    if (!loopback) throw new Error(`relative webhook ${path}: no in-process app to deliver it to`);
    const { signal } = init;
    const aborted = new Promise<never>((_, reject) => {
      signal.addEventListener("abort", () => reject(new Error(`relative webhook ${path}: timed out`)), { once: true });
    });
    const response = await Promise.race([Promise.resolve(loopback(new Request(new URL(path, "http://localhost"), init))), aborted]);
    await response.body?.cancel();
    return response.status;
  }
}

/** The request body of a delivery (see WebhookOutbox). */
function deliveryBody(delivery: Delivery): string {
  if (delivery.kind === "webhook") return JSON.stringify({ ...(delivery.payload as object), webhook_sent_at: nowIso() });
  return typeof delivery.payload === "string" ? delivery.payload : JSON.stringify(delivery.payload);
}
