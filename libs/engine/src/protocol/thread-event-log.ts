import type { EventRepo, StoredEvent } from "@agent-server/core";
import type { EngineSignals } from "../signals/engine-signals.js";
import { toStreamJson } from "../streaming/stream-json.js";

/** Where a protocol event happened: its namespace in the agent tree, when, and (for some) which node. */
export interface ThreadEventParams {
  namespace: string[];
  timestamp: number;
  node?: string;
  data: unknown;
}

/**
 * One event of the thread streaming protocol as it goes on the wire. `seq` counts the thread's events
 * across all its runs (1, 2, ...); `event_id` is the same number as text, so a client deduplicating by
 * `event_id` and one resuming with `since: seq` agree.
 */
export interface ThreadEvent {
  type: "event";
  event_id: string;
  seq: number;
  method: string;
  params: ThreadEventParams;
}

/** A stored event with the run that produced it (never sent: the agent tree of one run is built from it). */
export interface LoggedThreadEvent {
  event: ThreadEvent;
  runId: string;
}

/** A thread's events for one consumer, replayed then live; `close()` ends it (the log never ends it). */
export interface ThreadEventStream extends AsyncIterable<ThreadEvent> {
  close(): void;
}

interface PendingEvent {
  method: string;
  json: { params: ThreadEventParams };
  resolve: (event: ThreadEvent) => void;
  reject: (error: unknown) => void;
}

interface ThreadWriter {
  queue: PendingEvent[];
  writing: boolean;
}

/** Most events stored in one write. */
const MAX_BATCH = 500;

/** The `EventRepo` stream that holds a thread's protocol events (run streams are keyed by run id). */
export const threadStreamKey = (threadId: string): string => `thread:${threadId}`;

/** A consumer this far behind is cut off (an `error`-less end: the client reconnects with `since`). */
const MAX_QUEUED_EVENTS = 10_000;

/**
 * The thread streaming protocol's event log: every event of a thread, across its runs, in one ordered,
 * durable stream. Events are appended to `EventRepo` under `threadStreamKey(threadId)`, which numbers them
 * (atomically across processes) and expires them after the configured TTL; then they are handed to this
 * process's open streams of the thread and signalled to the other processes, which hand them to theirs.
 *
 * A stream registers for live events first, then replays what is stored after its cursor, then goes on
 * live, skipping what it has already yielded; a live event that skips numbers (a signal was lost, or the
 * appender is another process that is ahead) makes it read the missing ones from storage. So a stream
 * opened late, on another process, or after a restart misses nothing that has not expired.
 *
 * Cost: one write per batch of events (every event appended while the previous write was under way);
 * a stream's replay reads the thread's unexpired events after its cursor once
 * (the events index), O(events of the thread within the TTL).
 */
export class ThreadEventLog {
  private readonly streams = new Map<string, Set<ThreadCursor>>();
  /** Threads with events appended and not stored yet (removed once a thread's queue is empty). */
  private readonly writers = new Map<string, ThreadWriter>();
  private readonly followed = new Map<string, Promise<() => void>>();

  constructor(
    private readonly events: EventRepo,
    private readonly ttlMs: number,
    private readonly signals: EngineSignals,
    /** How long an open stream waits without a live event before it reads storage anyway (a lost signal). */
    private readonly pollMs: number,
  ) {}

  /**
   * Stores one event of `runId` on its thread and delivers it; resolves with the event as sent. Events of
   * a thread are stored in the order they were appended; those appended while an earlier write is under
   * way are stored together in the next one (`EventRepo.appendMany`: one statement), so a graph that
   * streams tokens faster than storage answers costs one write per batch, not per token.
   */
  append(threadId: string, runId: string, method: string, params: ThreadEventParams): Promise<ThreadEvent> {
    const json = toStreamJson({ run_id: runId, params }) as { params: ThreadEventParams };
    let writer = this.writers.get(threadId);
    if (!writer) this.writers.set(threadId, (writer = { queue: [], writing: false }));
    const queued = writer;
    const stored = new Promise<ThreadEvent>((resolve, reject) => queued.queue.push({ method, json, resolve, reject }));
    if (!writer.writing) void this.write(threadId, writer);
    return stored;
  }

  /** Events of the thread appended and not stored yet (a producer far ahead of storage waits on its appends). */
  backlog(threadId: string): number {
    return this.writers.get(threadId)?.queue.length ?? 0;
  }

  /** Stores the thread's queued events, a batch at a time, until none is left. */
  private async write(threadId: string, writer: ThreadWriter): Promise<void> {
    writer.writing = true;
    try {
      while (writer.queue.length > 0) {
        const batch = writer.queue.splice(0, MAX_BATCH);
        try {
          const stored = await this.store(threadId, batch);
          const events = batch.map((pending, i) => toThreadEvent(stored[i]!.id, pending.method, pending.json.params));
          for (const event of events) {
            this.deliver(threadId, event);
            this.signals.threadEvent(threadId, event);
          }
          batch.forEach((pending, i) => pending.resolve(events[i]!));
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      writer.writing = false;
      if (this.writers.get(threadId) === writer) this.writers.delete(threadId);
    }
  }

  private store(threadId: string, batch: PendingEvent[]): Promise<StoredEvent[]> {
    const key = threadStreamKey(threadId);
    const options = { ttlMs: this.ttlMs };
    if (batch.length > 1 && this.events.appendMany) {
      return this.events.appendMany(
        key,
        batch.map((pending) => ({ event: pending.method, data: pending.json })),
        options,
      );
    }
    return (async () => {
      const stored: StoredEvent[] = [];
      for (const pending of batch) stored.push(await this.events.append(key, pending.method, pending.json, options));
      return stored;
    })();
  }

  /** The stored events of a thread after `after` (a seq), oldest first. */
  async list(threadId: string, after?: number): Promise<LoggedThreadEvent[]> {
    const stored = await this.events.list(threadStreamKey(threadId), after === undefined ? undefined : { after: String(after) });
    return stored.map((e) => {
      const data = e.data as { run_id?: unknown; params?: ThreadEventParams } | null;
      return { event: toThreadEvent(e.id, e.event, data?.params ?? emptyParams()), runId: String(data?.run_id ?? "") };
    });
  }

  /** The seq of the thread's latest event (undefined: none yet, or a driver without `EventRepo.lastId`). */
  async lastSeq(threadId: string): Promise<number | undefined> {
    const last = await this.events.lastId?.(threadStreamKey(threadId));
    return last == null ? undefined : Number(last);
  }

  /** Thread streams open in this process (SSE and WebSocket subscribers; a gauge read at scrape time, O(threads streamed)). */
  get openStreamCount(): number {
    let count = 0;
    for (const set of this.streams.values()) count += set.size;
    return count;
  }

  /** Opens a stream of the thread's events after `after` (a seq; undefined: from the first one kept). */
  open(threadId: string, options: { after?: number } = {}): ThreadEventStream {
    const cursor = new ThreadCursor(
      options.after,
      this.pollMs,
      (from) => this.list(threadId, from),
      () => this.remove(threadId, cursor),
    );
    let set = this.streams.get(threadId);
    if (!set) this.streams.set(threadId, (set = new Set()));
    set.add(cursor);
    let following = this.followed.get(threadId);
    if (!following) {
      following = this.signals.onThread(threadId, (event) => {
        if (isThreadEvent(event)) this.deliver(threadId, event);
      });
      this.followed.set(threadId, following);
    }
    cursor.start(following.then(() => undefined));
    return cursor;
  }

  /** Forgets a deleted thread's events. */
  async delete(threadId: string): Promise<void> {
    await this.events.deleteForRun(threadStreamKey(threadId));
  }

  private deliver(threadId: string, event: ThreadEvent): void {
    for (const cursor of this.streams.get(threadId) ?? []) cursor.push(event);
  }

  private remove(threadId: string, cursor: ThreadCursor): void {
    const set = this.streams.get(threadId);
    set?.delete(cursor);
    if (set && set.size > 0) return;
    this.streams.delete(threadId);
    const following = this.followed.get(threadId);
    this.followed.delete(threadId);
    void following?.then((stop) => stop());
  }
}

/** One consumer's position in a thread's log: replay, then live events in order, gaps read from storage. */
class ThreadCursor implements ThreadEventStream {
  private readonly live: ThreadEvent[] = [];
  private readonly ready: ThreadEvent[] = [];
  /** The consumer waiting for `ready`, and the pump waiting for `live`. */
  private reader: (() => void) | undefined;
  private pumper: (() => void) | undefined;
  private done = false;
  private last: number | undefined;

  constructor(
    after: number | undefined,
    private readonly pollMs: number,
    private readonly read: (after: number | undefined) => Promise<LoggedThreadEvent[]>,
    private readonly onClose: () => void,
  ) {
    this.last = after;
  }

  start(following: Promise<void>): void {
    void this.run(following).catch(() => this.close());
  }

  push(event: ThreadEvent): void {
    if (this.done) return;
    if (this.live.length + this.ready.length >= MAX_QUEUED_EVENTS) {
      this.close();
      return;
    }
    this.live.push(event);
    this.pumper = wake(this.pumper);
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.live.length = 0;
    this.ready.length = 0;
    this.onClose();
    this.reader = wake(this.reader);
    this.pumper = wake(this.pumper);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ThreadEvent> {
    try {
      while (true) {
        const next = this.ready.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.done) return;
        await new Promise<void>((resolve) => (this.reader = resolve));
      }
    } finally {
      this.close();
    }
  }

  /**
   * Replays from storage, then moves live events to `ready` in seq order. A live event that skips numbers
   * makes it read the missing ones from storage first; so does a quiet `pollMs` (the last events of a run
   * whose signals were lost would otherwise wait for the thread's next event).
   */
  private async run(following: Promise<void>): Promise<void> {
    await following;
    this.accept((await this.read(this.last)).map((e) => e.event));
    while (!this.done) {
      const event = this.live.shift();
      if (!event) {
        if (await this.idle()) this.accept((await this.read(this.last)).map((e) => e.event));
        continue;
      }
      const last = this.last ?? 0;
      if (event.seq <= last) continue;
      if (event.seq > last + 1) this.accept((await this.read(this.last)).map((e) => e.event).filter((e) => e.seq < event.seq));
      this.accept([event]);
    }
  }

  /** Waits for a live event or the poll interval; true when the interval passed without one. */
  private idle(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.pumper = undefined;
        resolve(!this.done);
      }, this.pollMs);
      timer.unref?.();
      this.pumper = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  private accept(events: ThreadEvent[]): void {
    for (const event of events) {
      if (this.last !== undefined && event.seq <= this.last) continue;
      this.last = event.seq;
      this.ready.push(event);
    }
    if (events.length > 0) this.reader = wake(this.reader);
  }
}

/** Resolves a waiting promise (if any); returns the empty slot. */
function wake(waiter: (() => void) | undefined): undefined {
  waiter?.();
  return undefined;
}

function toThreadEvent(id: string, method: string, params: ThreadEventParams): ThreadEvent {
  return { type: "event", event_id: id, seq: Number(id), method, params };
}

function emptyParams(): ThreadEventParams {
  return { namespace: [], timestamp: 0, data: null };
}

function isThreadEvent(value: unknown): value is ThreadEvent {
  const event = value as ThreadEvent | null;
  return typeof event?.seq === "number" && typeof event.method === "string" && typeof event.params === "object";
}
