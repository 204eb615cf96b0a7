import { toWireJson, type EventRepo, type StoredEvent } from "@agent-server/core";

export interface StreamEvent {
  /**
   * What SSE sends as `id:`. Resumable runs: the stored event's id (a client sends it back as
   * `Last-Event-ID`). Other runs: the event's index in the run's stream ("0" for `metadata`), as the
   * official server numbers them; nothing is stored to replay from.
   */
  id?: string;
  event: string;
  data: unknown;
}

/** Subscribers that fall this far behind are dropped rather than buffering without bound. */
const MAX_QUEUED_EVENTS = 10_000;

/**
 * In-process fan-out of run events to the requests streaming them. Events of `stream_resumable` runs
 * are also appended to `EventRepo` (with a TTL) so a client can replay them after `Last-Event-ID`.
 * Nothing here outlives a run: `end(runId)` closes its subscribers and forgets the run.
 */
export class StreamHub {
  private readonly subscribers = new Map<string, Set<Subscription>>();
  /** How many events each live, non-resumable run has published (the next event's id). */
  private readonly published = new Map<string, number>();

  constructor(
    private readonly events: EventRepo,
    private readonly ttlMs: number,
  ) {}

  /** Subscribe before the run can start, so no event is missed. */
  subscribe(runId: string): Subscription {
    const subscription = new Subscription(() => this.remove(runId, subscription));
    let set = this.subscribers.get(runId);
    if (!set) this.subscribers.set(runId, (set = new Set()));
    set.add(subscription);
    return subscription;
  }

  async publish(runId: string, event: string, data: unknown, options: { resumable: boolean }): Promise<void> {
    const json = toStreamJson(data);
    let delivered: StreamEvent;
    if (options.resumable) {
      const stored = await this.events.append(runId, event, json, { ttlMs: this.ttlMs });
      delivered = { id: stored.id, event, data: stored.data };
    } else {
      const index = this.published.get(runId) ?? 0;
      this.published.set(runId, index + 1);
      delivered = { id: String(index), event, data: json };
    }
    for (const subscriber of this.subscribers.get(runId) ?? []) subscriber.push(delivered);
  }

  /** Closes every subscriber of the run. */
  end(runId: string): void {
    const set = this.subscribers.get(runId);
    this.subscribers.delete(runId);
    this.published.delete(runId);
    for (const subscriber of set ?? []) subscriber.finish();
  }

  /** Stored events of a resumable run after `lastEventId` ("-1" or undefined: from the start). */
  async replay(runId: string, lastEventId: string | undefined): Promise<StoredEvent[]> {
    const after = lastEventId === undefined || lastEventId === "-1" ? undefined : lastEventId;
    return this.events.list(runId, { after });
  }

  private remove(runId: string, subscription: Subscription): void {
    const set = this.subscribers.get(runId);
    set?.delete(subscription);
    if (set?.size === 0) this.subscribers.delete(runId);
  }
}

/** One consumer's view of a run's live events, as an async iterator. */
export class Subscription implements AsyncIterable<StreamEvent> {
  private readonly queue: StreamEvent[] = [];
  private waiter: (() => void) | undefined;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(event: StreamEvent): void {
    if (this.done) return;
    if (this.queue.length >= MAX_QUEUED_EVENTS) {
      this.queue.push({ event: "error", data: { error: "StreamOverflow", message: "subscriber fell too far behind" } });
      this.finish();
      return;
    }
    this.queue.push(event);
    this.wake();
  }

  finish(): void {
    if (this.done) return;
    this.done = true;
    this.onClose();
    this.wake();
  }

  close(): void {
    this.queue.length = 0;
    this.finish();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    try {
      while (true) {
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.done) return;
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    } finally {
      this.close();
    }
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * Stream payloads are best-effort JSON: a chunk with something JSON cannot carry (a callback in an
 * `events` payload, say) must not kill the run, so such members degrade the way JSON.stringify would.
 */
function toStreamJson(data: unknown): unknown {
  try {
    return toWireJson(data);
  } catch {
    return JSON.parse(
      JSON.stringify(data, (_key, value) => {
        if (typeof value === "bigint") return value.toString();
        if (value && typeof value === "object" && typeof value.toDict === "function") {
          const { type, data: body } = value.toDict();
          return { ...body, type };
        }
        return value;
      }) ?? "null",
    );
  }
}
