import { createHash, randomUUID } from "node:crypto";
import { checkChannel, deliverSignal, type SignalBus, type SignalHandler } from "@agent-server/core";
import pg from "pg";
import { query } from "./db.js";

/**
 * PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; a signal's JSON is cut into chunks of at most
 * this many bytes (plus a short header), all sent in one statement, so they commit together.
 */
export const MAX_CHUNK_BYTES = 7800;
const MAX_PARTIAL_MESSAGES = 1000;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

/**
 * Signals over LISTEN/NOTIFY (reach "database": every process on the same database and schema).
 *
 * - Receiving: one dedicated connection (outside the pool) LISTENs on the channels this process has
 *   subscribers for. When it is lost, it is reopened with backoff (100 ms doubling up to 5 s) and
 *   LISTENs again; signals sent meanwhile are lost (callers poll as well, see `SignalBus`).
 * - Sending: `pg_notify` through the pool. Publishes are queued and sent one statement at a time, all
 *   queued ones in one statement (one transaction), so they commit — and are delivered — in call order.
 *   The first waits for the end of the event loop's turn, so a turn's publishes share one statement.
 * - Channels: a logical channel maps to `as_<sha1(schema, channel)>`, so schemas sharing a database do
 *   not hear each other, and any channel string fits PostgreSQL's 63-byte identifiers.
 * - Payloads: JSON, cut into chunks of at most `MAX_CHUNK_BYTES` (at UTF-8 character boundaries), each
 *   headed `<message id>:<index>:<count>:`; the receiver joins them. Distinct headers also keep
 *   PostgreSQL from folding identical payloads of one transaction into one.
 */
export class PostgresSignalBus implements SignalBus {
  readonly reach = "database" as const;
  private listener: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  /** PostgreSQL channel name -> this process's handlers on it. */
  private readonly channels = new Map<string, Set<SignalHandler>>();
  /** Chunks received of messages not complete yet (message id -> chunks). */
  private readonly partial = new Map<string, string[]>();
  private readonly busId = randomUUID().slice(0, 8);
  private sequence = 0;
  private outbox: { channel: string; chunks: string[]; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;
  private flushScheduled = false;
  /** The flush under way (settled when the outbox is empty). */
  private flushed: Promise<void> = Promise.resolve();
  private commands: Promise<unknown> = Promise.resolve();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectMs = RECONNECT_FIRST_MS;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  async publish(channel: string, payload: unknown): Promise<void> {
    checkChannel(channel);
    if (this.closed) throw new Error("the signal bus is closed");
    const messageId = `${this.busId}.${(this.sequence += 1)}`;
    const chunks = splitUtf8(JSON.stringify(payload ?? null), MAX_CHUNK_BYTES);
    const headed = chunks.map((chunk, index) => `${messageId}:${index}:${chunks.length}:${chunk}`);
    return new Promise<void>((resolve, reject) => {
      this.outbox.push({ channel: this.channelName(channel), chunks: headed, resolve, reject });
      this.scheduleFlush();
    });
  }

  async subscribe(channel: string, handler: SignalHandler): Promise<() => void> {
    checkChannel(channel);
    const name = this.channelName(channel);
    const entry: SignalHandler = (payload) => handler(payload);
    let handlers = this.channels.get(name);
    if (!handlers) this.channels.set(name, (handlers = new Set()));
    handlers.add(entry);
    const unsubscribe = () => {
      const current = this.channels.get(name);
      if (!current?.delete(entry) || current.size > 0) return;
      this.channels.delete(name);
      // Queued on the connection after any earlier LISTEN of the same channel, so order holds.
      if (this.listener) this.command(this.listener, `UNLISTEN "${name}"`).catch(() => undefined);
    };
    try {
      const client = await this.connection();
      if (this.channels.get(name)?.has(entry)) await this.command(client, `LISTEN "${name}"`);
    } catch {
      // Unreachable now: the handler stays registered and is LISTENed to again on reconnection.
      this.scheduleReconnect();
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.channels.clear();
    // What was published before the close still goes out: its flush may be waiting for the end of a turn.
    await this.flush();
    const client = this.listener ?? (await this.connecting?.catch(() => undefined));
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  /** One statement at a time on the listening connection (pg wants no overlapping queries on a client). */
  private command(client: pg.Client, sql: string): Promise<unknown> {
    const done = this.commands.then(() => client.query(sql));
    this.commands = done.catch(() => undefined);
    return done;
  }

  private channelName(channel: string): string {
    return `as_${createHash("sha1").update(this.schema).update("\u0000").update(channel).digest("hex")}`;
  }

  /**
   * Flushes once the current turn of the event loop is done, so the signals it publishes go out in one
   * statement (a run's end and the wake-up after it are published a few promise steps apart).
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushed;
    this.flushing = true;
    this.flushed = this.sendQueued();
    return this.flushed;
  }

  /** Sends the outbox, a statement at a time, until it is empty. */
  private async sendQueued(): Promise<void> {
    try {
      while (this.outbox.length > 0) {
        const batch = this.outbox.splice(0);
        const channels: string[] = [];
        const payloads: string[] = [];
        for (const { channel, chunks } of batch) {
          for (const chunk of chunks) {
            channels.push(channel);
            payloads.push(chunk);
          }
        }
        try {
          // A function scan yields the rows in array order: the notifications are queued in that order.
          await query(this.pool, "SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS n(c, p)", [channels, payloads]);
          for (const pending of batch) pending.resolve();
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The listening connection, opened (and LISTENing to every channel with handlers) when missing. */
  private connection(): Promise<pg.Client> {
    if (this.listener) return Promise.resolve(this.listener);
    if (this.closed) return Promise.reject(new Error("the signal bus is closed"));
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ ...(this.pool.options as pg.ClientConfig), application_name: `agent-server signals ${this.schema}` });
    client.on("notification", (message) => this.received(message.channel, message.payload ?? ""));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      for (const name of this.channels.keys()) await this.command(client, `LISTEN "${name}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error("the signal bus is closed");
    }
    this.listener = client;
    this.reconnectMs = RECONNECT_FIRST_MS;
    return client;
  }

  private lost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.partial.clear();
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  /** Reopens the listening connection (with backoff) while there is someone to deliver to. */
  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.listener || this.channels.size === 0) return;
    const wait = this.reconnectMs;
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connection().catch(() => this.scheduleReconnect());
    }, wait);
    this.reconnectTimer.unref?.();
  }

  private received(channel: string, text: string): void {
    const handlers = this.channels.get(channel);
    if (!handlers) return;
    const header = /^([^:]+):(\d+):(\d+):/.exec(text);
    if (!header) return;
    const [prefix, messageId, indexText, countText] = header as unknown as [string, string, string, string];
    const index = Number(indexText);
    const count = Number(countText);
    const chunk = text.slice(prefix.length);
    let json: string;
    if (count === 1) json = chunk;
    else {
      const chunks = this.partial.get(messageId) ?? new Array<string>(count);
      chunks[index] = chunk;
      if (chunks.filter((c) => c !== undefined).length < count) {
        // Chunks of one message commit together; a message left incomplete (a lost connection) is dropped.
        if (this.partial.size >= MAX_PARTIAL_MESSAGES) this.partial.delete(this.partial.keys().next().value!);
        this.partial.set(messageId, chunks);
        return;
      }
      this.partial.delete(messageId);
      json = chunks.join("");
    }
    for (const handler of [...handlers]) deliverSignal(handler, JSON.parse(json));
  }
}

/** Cuts `text` into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + maxBytes, bytes.length);
    // Back up over continuation bytes (10xxxxxx) so the piece ends on a character boundary.
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    pieces.push(bytes.subarray(start, end).toString("utf8"));
    start = end;
  }
  return pieces;
}
