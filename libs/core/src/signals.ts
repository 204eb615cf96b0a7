/**
 * Live signals between the server processes that share one storage: "this run has an event", "this run
 * ended", "cancel that run", "work was admitted". A signal is a hint that saves a poll, never the record:
 * delivery is at most once (a subscriber may miss signals while its connection is lost), so every reader
 * of a signal also has a slower path through storage that reaches the same state without it.
 */
export interface SignalBus {
  /**
   * Who receives what is published: `"process"` — subscribers of this very `SignalBus` only (memory,
   * SQLite: other processes keep polling); `"database"` — every process whose driver is open on the same
   * data (PostgreSQL LISTEN/NOTIFY), this one included.
   */
  readonly reach: "process" | "database";
  /**
   * Sends `payload` (a JSON value, of any size) to every subscriber of `channel` (any string up to 200
   * characters). Signals published through one bus reach each subscriber in the order `publish` was
   * called, whether or not the caller awaited the previous call. Rejects when the signal could not be
   * sent (the backend is unreachable): the signal is lost and the caller's poll takes over.
   */
  publish(channel: string, payload: unknown): Promise<void>;
  /**
   * Calls `handler` with a copy of each payload later published on `channel` (a JSON round trip: what
   * JSON cannot carry is gone). Resolves once signals published from now on will be delivered, or, when
   * the backend is unreachable, once the handler is registered (it will receive signals once the bus has
   * reconnected). Resolves with the function that ends the subscription.
   */
  subscribe(channel: string, handler: SignalHandler): Promise<() => void>;
}

export type SignalHandler = (payload: unknown) => void;

/** Longest channel name a `SignalBus` must accept. */
export const MAX_SIGNAL_CHANNEL_LENGTH = 200;

/**
 * A `SignalBus` within one process: for drivers with nothing to carry signals between processes. Delivery is asynchronous (a microtask later), in publish order, as over a network.
 */
export class LocalSignalBus implements SignalBus {
  private readonly handlers = new Map<string, Set<SignalHandler>>();

  /**
   * `reach` is what the owner says it is: `"process"` for a bus of one driver object, `"database"` when
   * every driver over the same data shares this one bus (the memory driver's instances over one state).
   */
  constructor(readonly reach: "process" | "database" = "process") {}

  async publish(channel: string, payload: unknown): Promise<void> {
    checkChannel(channel);
    const handlers = [...(this.handlers.get(channel) ?? [])];
    if (handlers.length === 0) return;
    const text = JSON.stringify(payload ?? null);
    queueMicrotask(() => {
      for (const handler of handlers) deliver(handler, JSON.parse(text));
    });
  }

  async subscribe(channel: string, handler: SignalHandler): Promise<() => void> {
    checkChannel(channel);
    // Each subscription is its own entry, so subscribing one function twice delivers twice.
    const entry: SignalHandler = (payload) => handler(payload);
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(entry);
    return () => {
      const current = this.handlers.get(channel);
      current?.delete(entry);
      if (current?.size === 0) this.handlers.delete(channel);
    };
  }
}

export function checkChannel(channel: string): void {
  if (typeof channel !== "string" || channel.length === 0 || channel.length > MAX_SIGNAL_CHANNEL_LENGTH) {
    throw new RangeError(`a signal channel is a string of 1 to ${MAX_SIGNAL_CHANNEL_LENGTH} characters`);
  }
}

/** A handler that throws must not stop delivery to the others (nor reach the bus's connection). */
export function deliver(handler: SignalHandler, payload: unknown): void {
  try {
    handler(payload);
  } catch (error) {
    console.error("a signal handler threw", error);
  }
}
