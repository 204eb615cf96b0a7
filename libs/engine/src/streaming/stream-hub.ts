import type { EventRepo, StoredEvent } from "@agent-server/core";
import type { RunEnd } from "../runs/waiters.js";
import type { EngineSignals } from "../signals/engine-signals.js";
import { eventsAfterCheckpoint, isCheckpointMark } from "./checkpoint-marks.js";
import { toStreamJson } from "./stream-json.js";
import type { StreamEvent } from "./types.js";

/** A run's live events for one consumer; `close()` ends them early (the run's end ends them anyway). */
export interface RunEventStream extends AsyncIterable<StreamEvent> {
  close(): void;
}

/**
 * How a run the stream followed ended, once it has: `end` when its settlement (here, or signalled from
 * the process that executed it) said, absent when the end was only noticed (the run was seen ended).
 */
export interface StreamedRunEnd {
  end?: Pick<RunEnd, "status" | "erased">;
}

/** Subscribers that fall this far behind are dropped rather than buffering without bound. */
const MAX_QUEUED_EVENTS = 10_000;
/**
 * How long another process's word that it streams a run holds here, unless the run ends first. Its
 * stream repeats it while the run lives (`FOLLOW_REPEAT_MS`), so a run queued longer is still sent.
 */
const REMOTE_FOLLOW_MS = 5 * 60_000;
const FOLLOW_REPEAT_MS = 60_000;
/** Above this many remembered remote follows, the expired ones are dropped (bounded memory). */
const REMOTE_FOLLOWS_SWEEP_AT = 1_000;
/**
 * A run streamed as it is created is followed before it exists: until it has been seen live, or this
 * long, the watch does not take "not live" for its end (admission on a loaded database can outlast two
 * checks, which closed the stream before its first event).
 */
const UNBORN_GRACE_MS = 30_000;

/** How the hub notices, without any signal, that a run it follows has ended elsewhere. */
export interface RunWatch {
  /** Whether the run is still pending or running (false: ended or gone). */
  isLive(runId: string): Promise<boolean>;
  /** How often followed runs are checked. */
  intervalMs: number;
}

/**
 * Fan-out of run events to the requests streaming them, in this process and — through `EngineSignals`
 * — in every other one: each event published here is also signalled on the run's channel, and while a
 * run has subscribers here, its channel is followed, so events of a run executing elsewhere reach them
 * in order, and its end closes them. Events of `stream_resumable` runs are also appended to `EventRepo`
 * (with a TTL) so a client can replay them after `Last-Event-ID`. A followed run is also checked every
 * `watch.intervalMs`: seen ended twice in a row, its subscribers are closed, so a lost end signal (or a
 * storage without cross-process signals) ends the stream late rather than never.
 * Nothing here outlives a run: `end(runId)` closes its subscribers and forgets the run.
 */
export class StreamHub {
  private readonly subscribers = new Map<string, Set<Subscription>>();
  /** How many events each live, non-resumable run has published (the next event's id). */
  private readonly published = new Map<string, number>();
  /** Runs with subscribers here: their channel subscription and status check. */
  private readonly followed = new Map<string, { ready: Promise<void>; stop: () => void }>();
  /** Runs other processes stream (`EngineSignals.follow`), until when (ms): only theirs are signalled. */
  private readonly remoteFollows = new Map<string, number>();

  constructor(
    private readonly events: EventRepo,
    private readonly ttlMs: number,
    private readonly signals: EngineSignals,
    private readonly watch: RunWatch,
  ) {}

  /** Subscribe before the run can start, so no event is missed; `ready(runId)` for events from elsewhere. */
  subscribe(runId: string): Subscription {
    const subscription = new Subscription(() => this.remove(runId, subscription));
    let set = this.subscribers.get(runId);
    if (!set) this.subscribers.set(runId, (set = new Set()));
    set.add(subscription);
    if (!this.followed.has(runId)) this.followed.set(runId, this.follow(runId));
    return subscription;
  }

  /** Live run-stream subscriptions in this process (a gauge, read at scrape time; O(runs streamed)). */
  get subscriptionCount(): number {
    let count = 0;
    for (const set of this.subscribers.values()) count += set.size;
    return count;
  }

  /** Resolves once events of `runId` published by other processes reach this process's subscribers. */
  ready(runId: string): Promise<void> {
    return this.followed.get(runId)?.ready ?? Promise.resolve();
  }

  /** Another process streams `runId` (its follow signal): its events are signalled from now on. */
  followedElsewhere(runId: string): void {
    const now = Date.now();
    if (this.remoteFollows.size >= REMOTE_FOLLOWS_SWEEP_AT) {
      for (const [id, until] of this.remoteFollows) if (until <= now) this.remoteFollows.delete(id);
    }
    this.remoteFollows.set(runId, now + REMOTE_FOLLOW_MS);
  }

  private isFollowedElsewhere(runId: string): boolean {
    const until = this.remoteFollows.get(runId);
    return until !== undefined && until > Date.now();
  }

  async publish(runId: string, event: string, data: unknown, options: { resumable: boolean }): Promise<void> {
    // A checkpoint mark is for replays only: stored with a resumable run's events, sent to nobody.
    if (isCheckpointMark({ event })) {
      if (options.resumable) await this.events.append(runId, event, toStreamJson(data), { ttlMs: this.ttlMs });
      return;
    }
    // Other processes get a run's events when one of them streams it, or when it is resumable (a stream
    // that replayed stored events must not miss the next live ones while its follow signal travels).
    const elsewhere = this.signals.crossProcess && (options.resumable || this.isFollowedElsewhere(runId));
    // Nobody to read it (a blocking wait, say): the chunk is only counted. A values chunk is the whole
    // state, so converting it for nobody would cost more on every turn of a long thread.
    if (!options.resumable && !elsewhere && !this.subscribers.has(runId)) {
      this.published.set(runId, (this.published.get(runId) ?? 0) + 1);
      return;
    }
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
    this.deliver(runId, delivered);
    if (elsewhere) this.signals.event(runId, delivered);
  }

  /**
   * The run ended in this process: closes its subscribers here and signals its end to the others.
   * `values` travel only when `withValues` (its thread is gone, so nobody could read them).
   */
  end(runId: string, end: RunEnd, options: { withValues: boolean }): void {
    this.remoteFollows.delete(runId);
    this.close(runId, { end });
    this.signals.end(runId, end, options);
  }

  /** The run ended: closes every subscriber of it in this process. */
  private close(runId: string, ended: StreamedRunEnd = {}): void {
    const set = this.subscribers.get(runId);
    this.subscribers.delete(runId);
    this.published.delete(runId);
    this.unfollow(runId);
    for (const subscriber of set ?? []) subscriber.runEnded(ended);
  }

  private deliver(runId: string, event: StreamEvent): void {
    for (const subscriber of this.subscribers.get(runId) ?? []) subscriber.push(event);
  }

  private follow(runId: string): { ready: Promise<void>; stop: () => void } {
    let stopped = false;
    let unsubscribe: (() => void) | undefined;
    const listening = this.signals
      .onRun(runId, (signal) => {
        if (signal.kind === "event") this.deliver(runId, signal.event);
        else if (signal.kind === "end") this.close(runId, { end: signal.end });
      })
      .then((stop) => {
        if (stopped) stop();
        else unsubscribe = stop;
      });
    // Listening first, then the executor is told: from its first signalled event on, this process hears it.
    const ready = listening.then(() => this.signals.follow(runId));
    let seenEnded = false;
    let seenLive = false;
    const since = Date.now();
    let announced = since;
    const timer = setInterval(() => {
      void this.watch.isLive(runId).then(
        (live) => {
          if (live) {
            seenLive = true;
            seenEnded = false;
          } else if (!seenLive && Date.now() - since < UNBORN_GRACE_MS) {
            // Not admitted yet (or ended before it was ever seen: its end signal closes it, else the grace).
          } else if (seenEnded) this.close(runId);
          else seenEnded = true;
          if (live && Date.now() - announced >= FOLLOW_REPEAT_MS) {
            announced = Date.now();
            void this.signals.follow(runId);
          }
        },
        () => undefined,
      );
    }, this.watch.intervalMs);
    timer.unref?.();
    return {
      ready,
      stop: () => {
        stopped = true;
        clearInterval(timer);
        unsubscribe?.();
      },
    };
  }

  private unfollow(runId: string): void {
    this.followed.get(runId)?.stop();
    this.followed.delete(runId);
  }

  /**
   * Stored events of a resumable run after `lastEventId`; "-1" or undefined: from the start, or with
   * `checkpointId`, from where that checkpoint of the run was taken (checkpoint-marks.ts).
   */
  async replay(runId: string, lastEventId: string | undefined, checkpointId?: string): Promise<StoredEvent[]> {
    const fromStart = lastEventId === undefined || lastEventId === "-1";
    const stored = await this.events.list(runId, { after: fromStart ? undefined : lastEventId });
    return eventsAfterCheckpoint(stored, fromStart ? checkpointId : undefined);
  }

  private remove(runId: string, subscription: Subscription): void {
    const set = this.subscribers.get(runId);
    set?.delete(subscription);
    if (set?.size === 0) {
      this.subscribers.delete(runId);
      this.unfollow(runId);
    }
  }
}

/** One consumer's view of a run's live events, as an async iterator. */
export class Subscription implements RunEventStream {
  private readonly queue: StreamEvent[] = [];
  private waiter: (() => void) | undefined;
  private done = false;
  /** Set when the run's end closed this subscription (not the consumer, nor an overflow). */
  ended: StreamedRunEnd | undefined;

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

  /** The run ended: what is queued is still read, then the iteration ends. */
  runEnded(ended: StreamedRunEnd): void {
    if (this.done) return;
    this.ended = ended;
    this.finish();
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

/** Closes a subscription when `signal` aborts (a client that went away), or at once if it already has. */
export function closeOnAbort(subscription: { close(): void }, signal: AbortSignal | undefined): void {
  if (!signal) return;
  if (signal.aborted) subscription.close();
  else signal.addEventListener("abort", () => subscription.close(), { once: true });
}
