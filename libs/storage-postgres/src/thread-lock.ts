import { createHash } from "node:crypto";
import { KeyedMutex } from "@agent-server/core";
import type pg from "pg";

/**
 * `Storage.withThreadLock` on PostgreSQL: a transaction-scoped advisory lock,
 * `pg_advisory_xact_lock(key)`, taken on a connection of its own and held while `fn` runs (on other
 * connections of the pool). Chosen over `SELECT ... FOR UPDATE` on the thread row because a row lock
 * would conflict with the writes the section itself makes through other connections (inserting a run
 * takes `FOR KEY SHARE` on its thread; updating the thread needs the row), and a thread that does not
 * exist yet could not be locked. The lock ends with the transaction, so a process that dies or loses its
 * connection frees it at once — no lease, no cleanup.
 *
 * The key is 64 bits of md5(schema, thread id): two threads sharing a key (odds 2^-64 per pair) would only
 * serialize their sections, and two schemas on one database never contend. It is held for short sections
 * only; a run's execution is never under it. Calls of this process queue per thread in memory first, and
 * at most half the pool's connections hold or wait for locks at once, so the sections' own queries always
 * find a free connection (the pool cannot be starved by its lock holders).
 */
export class PostgresThreadLock {
  private readonly local = new KeyedMutex();
  private readonly slots: Semaphore;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {
    const max = (pool as unknown as { options?: { max?: number } }).options?.max ?? 10;
    this.slots = new Semaphore(Math.max(1, Math.floor(max / 2)));
  }

  run<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    return this.local.run(threadId, () => this.slots.with(() => this.locked(threadId, fn)));
  }

  private async locked<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      // One round trip (a simple query may hold several statements; the key is a number, no parameters).
      // A holder that never lets go (a hung section elsewhere) fails this call instead of hanging it.
      await client.query(
        `BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'; SELECT pg_advisory_xact_lock(${threadLockKey(this.schema, threadId)})`,
      );
    } catch (error) {
      await client.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
      client.release(broken);
      throw error;
    }
    try {
      return await fn();
    } finally {
      // Nothing was written on this connection: ending the transaction only releases the lock.
      await client.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
      client.release(broken);
    }
  }
}

/**
 * The lock's 64-bit key: the first 16 hex digits of md5(schema:thread id) as a signed bigint — what
 * `('x' || substr(md5($1 || ':' || $2), 1, 16))::bit(64)::bigint` computes, which earlier versions sent,
 * so processes of both versions on one database lock the same key.
 */
export function threadLockKey(schema: string, threadId: string): string {
  const hex = createHash("md5").update(`${schema}:${threadId}`, "utf8").digest("hex").slice(0, 16);
  return BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
}

/** How long a section waits for another process's section on the same thread before failing. */
const LOCK_TIMEOUT_MS = 30_000;

/** At most `size` callers inside `with` at once; the others wait in arrival order. */
class Semaphore {
  private readonly waiting: (() => void)[] = [];
  private used = 0;

  constructor(private readonly size: number) {}

  async with<T>(fn: () => Promise<T>): Promise<T> {
    if (this.used >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.used += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.used -= 1;
    }
  }
}
