import type { OwnerPresence } from "@agent-server/core";
import pg from "pg";
import { query, transaction } from "./db.js";

/**
 * `OwnerPresence` on PostgreSQL: each announced owner holds a session advisory lock on a connection of
 * its own (one per process, outside the pool, so it never takes a pool slot). When the process dies its
 * connection closes and PostgreSQL releases the lock at once; another process asking `alive` tries the
 * same lock (`pg_try_advisory_xact_lock`, released when its short transaction ends): taken means nobody
 * holds it, so the owner is gone. A host that vanishes without closing its connections is seen only once
 * TCP gives up on it; leases still cover that case.
 */
export class PostgresPresence implements OwnerPresence {
  private readonly owners = new Set<string>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /** Whether the connection was ever lost, and when it was last reopened after that (epoch ms). */
  private lost = false;
  private reopenedAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  async announce(owner: string): Promise<void> {
    this.owners.add(owner);
    if (this.client) await this.client.query(`SELECT pg_advisory_lock(${KEY})`, [this.schema, owner]);
    else await this.connect();
  }

  async alive(owners: string[]): Promise<Set<string>> {
    if (owners.length === 0) return new Set();
    // Our own session was lost (a database restart, our connections terminated): every other process's
    // was most likely lost with it and is being reopened. Until ours is back and the others have had
    // time to follow, nobody is declared gone (leases still cover an owner that really died meanwhile).
    if (this.owners.size > 0 && (!this.client || Date.now() - this.reopenedAt < RECONNECT_GRACE_MS)) return new Set(owners);
    const held = await transaction(this.pool, (client) =>
      query<{ owner: string }>(
        client,
        `SELECT o AS owner FROM unnest($2::text[]) AS o WHERE NOT pg_try_advisory_xact_lock(${KEY_OF("o")})`,
        [this.schema, [...new Set(owners)]],
      ),
    );
    return new Set(held.map((row) => row.owner));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => undefined);
    await this.client?.end().catch(() => undefined);
  }

  /** Opens the presence connection and takes every announced owner's lock; reconnects if it drops. */
  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      const client = new pg.Client((this.pool as unknown as { options: pg.ClientConfig }).options);
      client.on("error", () => undefined);
      try {
        await client.connect();
        for (const owner of this.owners) await client.query(`SELECT pg_advisory_lock(${KEY})`, [this.schema, owner]);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      client.on("end", () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.lost = true;
        this.reconnect(RECONNECT_MS);
      });
      this.client = client;
      if (this.lost) this.reopenedAt = Date.now();
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Opens the connection again after `waitMs`, and again (doubling, up to `RECONNECT_MAX_MS`) while the
   * database stays away: until then this process's owners read as gone to the others, whose reapers take
   * its runs back once their leases lapse; its own hand-backs keep those runs from running twice.
   */
  private reconnect(waitMs: number): void {
    if (this.closed) return;
    setTimeout(() => {
      if (this.closed || this.client) return;
      this.connect().catch(() => this.reconnect(Math.min(waitMs * 2, RECONNECT_MAX_MS)));
    }, waitMs).unref?.();
  }
}

/** 64 bits of md5 of the schema and the owner ($1, and the owner's SQL expression). */
const KEY_OF = (owner: string) => `('x' || substr(md5('presence:' || $1 || ':' || ${owner}), 1, 16))::bit(64)::bigint`;
const KEY = KEY_OF("$2");
/** A presence connection that dropped (database restart) is opened again after this long. */
const RECONNECT_MS = 1000;
const RECONNECT_MAX_MS = 2000;
/** How long after our own presence came back other owners are still given to reopen theirs. */
const RECONNECT_GRACE_MS = 5000;
