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
        if (!this.closed) setTimeout(() => void this.connect().catch(() => undefined), RECONNECT_MS).unref?.();
      });
      this.client = client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }
}

/** 64 bits of md5 of the schema and the owner ($1, and the owner's SQL expression). */
const KEY_OF = (owner: string) => `('x' || substr(md5('presence:' || $1 || ':' || ${owner}), 1, 16))::bit(64)::bigint`;
const KEY = KEY_OF("$2");
/** A presence connection that dropped (database restart) is opened again after this long. */
const RECONNECT_MS = 1000;
