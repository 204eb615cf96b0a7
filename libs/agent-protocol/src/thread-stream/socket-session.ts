import { jsonDepthExceeds, MAX_JSON_DEPTH, stringifyWire } from "@agent-server/core";
import type { Engine, ThreadEvent, ThreadEventStream } from "@agent-server/engine";
import { handleCommand, type SubscriptionHost } from "./commands.js";
import { failure, type CommandResponse, type ProtocolCommand } from "./envelopes.js";
import { filterMatches, type EventFilter } from "./subscriptions.js";
import type { CommandCaller } from "./thread-reads.js";

/** Largest command frame a socket accepts (a run's input rides in it; REST bodies have their own limit). */
export const MAX_FRAME_BYTES = 25 * 1024 * 1024;

interface Subscription {
  filter: EventFilter;
  /** Events that arrived between the subscribe and its replay: sent right after the replay. */
  backlog: ThreadEvent[] | undefined;
  /** The last seq this subscription has (sent, or before a reconnect's last_event_id): never sent again. */
  sentThrough: number;
}

/**
 * One WebSocket on `GET /threads/{thread_id}/stream/events`: commands in, responses and events out, in
 * one ordered stream. Subscriptions live on the socket (`subscription.subscribe` / `unsubscribe`, across
 * runs, until it closes); `subscription.reconnect` restores them on a new socket from their ids.
 *
 * Everything written goes through one queue, so order holds: a subscribe's success comes before the
 * events it replays, and the replay before the live events that follow it. The socket follows the
 * thread's log from its first kept event (`lastSeq` is how far it got); a live event goes out once when
 * at least one subscription wants it. Commands are handled one at a time, in the order they arrive.
 */
export class ProtocolSocketSession {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly events: ThreadEventStream;
  private writes: Promise<void> = Promise.resolve();
  private commands: Promise<void> = Promise.resolve();
  private lastSeq = 0;
  /** Subscriptions a command added, to activate (replay, then live) once its response is out. */
  private activations: Array<() => Promise<void>> = [];
  private closed = false;

  constructor(
    private readonly caller: CommandCaller,
    private readonly threadId: string,
    private readonly send: (text: string) => void,
    private readonly visible: () => Promise<boolean>,
    /** The thread turned out to be one the caller may not see: the socket is closed (4404). */
    private readonly hidden: () => void = () => undefined,
  ) {
    this.events = this.engine.threadEvents.open(threadId);
    void this.follow();
  }

  private get engine(): Engine {
    return this.caller.deps.engine;
  }

  /** A frame from the client: a command, answered in order. */
  receive(text: string): void {
    this.commands = this.commands.then(() => this.handle(text)).catch(() => undefined);
  }

  close(): void {
    this.closed = true;
    this.events.close();
    this.subscriptions.clear();
  }

  private async handle(text: string): Promise<void> {
    if (this.closed) return;
    const command = parseCommand(text);
    if ("type" in command) return this.write(() => this.sendJson(command));
    const response = await handleCommand(this.caller, this.threadId, command, this.host);
    const activations = this.activations.splice(0);
    await this.write(async () => {
      this.sendJson(response);
      if (response.type === "success") for (const activate of activations) await activate();
    });
  }

  private readonly host: SubscriptionHost = {
    subscribe: async (id, filter) => {
      this.add(id, filter);
      this.activations.push(() => this.replay([id], undefined));
      return { replayed: 0 };
    },
    unsubscribe: (id) => this.subscriptions.delete(id),
    restore: async (subscriptions, after) => {
      for (const { id, filter } of subscriptions) this.add(id, filter, after ?? 0);
      const ids = subscriptions.map((s) => s.id);
      const missed = (await this.engine.threadEvents.list(this.threadId, after)).filter(({ event }) =>
        ids.some((id) => filterMatches(event, this.subscriptions.get(id)!.filter)),
      ).length;
      this.activations.push(() => this.replay(ids, after));
      return missed;
    },
  };

  private add(id: string, filter: EventFilter, sentThrough = 0): void {
    this.subscriptions.set(id, { filter, backlog: [], sentThrough });
  }

  /** Sends what the subscriptions `ids` want of the log after `after` up to `lastSeq`, then their backlog. */
  private async replay(ids: string[], after: number | undefined): Promise<void> {
    const wanted = ids.map((id) => this.subscriptions.get(id)).filter((s): s is Subscription => s !== undefined);
    const upTo = this.lastSeq;
    const stored = await this.engine.threadEvents.list(this.threadId, after);
    const backlog = wanted.flatMap((s) => s.backlog ?? []);
    for (const s of wanted) s.backlog = undefined;
    const events = [...stored.map((e) => e.event).filter((e) => e.seq <= upTo), ...backlog].sort((a, b) => a.seq - b.seq);
    for (const event of events) {
      const takers = wanted.filter((s) => event.seq > s.sentThrough && filterMatches(event, s.filter));
      // An event both stored and in a backlog comes twice: its takers' sentThrough skips the second.
      if (takers.length === 0) continue;
      if (!(await this.isVisible())) return;
      for (const s of takers) s.sentThrough = event.seq;
      this.sendJson(event);
    }
  }

  /** The thread's log, live: each event goes out once if an active subscription wants it. */
  private async follow(): Promise<void> {
    for await (const event of this.events) {
      await this.write(async () => {
        this.lastSeq = event.seq;
        let wanted = false;
        for (const subscription of this.subscriptions.values()) {
          if (event.seq <= subscription.sentThrough || !filterMatches(event, subscription.filter)) continue;
          if (subscription.backlog) subscription.backlog.push(event);
          else {
            wanted = true;
            subscription.sentThrough = event.seq;
          }
        }
        if (wanted && (await this.isVisible())) this.sendJson(event);
      });
    }
  }

  /** Whether the caller may see the thread; the first no ends the session and closes the socket. */
  private async isVisible(): Promise<boolean> {
    if (await this.visible()) return true;
    if (!this.closed) {
      this.close();
      this.hidden();
    }
    return false;
  }

  private write(task: () => void | Promise<void>): Promise<void> {
    this.writes = this.writes.then(task).catch(() => undefined);
    return this.writes;
  }

  private sendJson(message: CommandResponse | ThreadEvent): void {
    if (!this.closed) this.send(stringifyWire(message));
  }
}

/** A command frame, or the error envelope that answers a frame that is not one. */
function parseCommand(text: string): ProtocolCommand | CommandResponse {
  if (text.length > MAX_FRAME_BYTES) return failure(null, "invalid_argument", `Command frames are limited to ${MAX_FRAME_BYTES} bytes.`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return failure(null, "invalid_argument", "Protocol commands must be valid JSON.");
  }
  // As REST bodies: deeper JSON is refused before anything is created for it (docs/limits.md).
  const command = payload as Partial<ProtocolCommand> | null;
  const id = command?.id;
  if (jsonDepthExceeds(payload, MAX_JSON_DEPTH)) {
    const echoed = typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? id : null;
    return failure(echoed, "invalid_argument", `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0 || typeof command?.method !== "string") {
    return failure(null, "invalid_argument", "Protocol commands must include a non-negative integer id and a string method.");
  }
  const params = command.params;
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
    return failure(id, "invalid_argument", "params must be an object.");
  }
  return { id, method: command.method, ...(params ? { params } : {}) };
}
