import { randomUUID } from "node:crypto";
import { KeyedMutex } from "@agent-server/core";
import type { Db, Stmt } from "./db.js";

/**
 * `Storage.withThreadLock` on SQLite, across the connections and processes that open one file. A write
 * transaction would be exclusive, but it locks the whole file and the section's own writes (on this same
 * connection, interleaved with other async work) would end up inside it; so the lock is a row in
 * `thread_locks` instead: inserted when free (or when its holder's lease has lapsed: a process that died
 * holding it), renewed while `fn` runs, deleted after. A caller that finds the row held polls for it.
 * Callers of this process queue in memory first, so only one of them per thread polls.
 */
export class SqliteThreadLock {
  private readonly local = new KeyedMutex();
  private readonly take: Stmt;
  private readonly extend: Stmt;
  private readonly release: Stmt;

  constructor(db: Db) {
    this.take = db.prepare(
      `INSERT INTO thread_locks (thread_id, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (thread_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE thread_locks.expires_at <= ?`,
    );
    this.extend = db.prepare("UPDATE thread_locks SET expires_at = ? WHERE thread_id = ? AND holder = ?");
    this.release = db.prepare("DELETE FROM thread_locks WHERE thread_id = ? AND holder = ?");
  }

  run<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    return this.local.run(threadId, async () => {
      const holder = randomUUID();
      await this.acquire(threadId, holder);
      const renewal = setInterval(() => this.renew(threadId, holder), LEASE_MS / 3);
      renewal.unref?.();
      try {
        return await fn();
      } finally {
        clearInterval(renewal);
        this.release.run(threadId, holder);
      }
    });
  }

  private async acquire(threadId: string, holder: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      const now = Date.now();
      if (this.take.run(threadId, holder, now + LEASE_MS, now).changes === 1) return;
      if (now > deadline) throw new Error(`thread ${threadId}: its lock was held by another connection for over ${WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private renew(threadId: string, holder: string): void {
    try {
      this.extend.run(Date.now() + LEASE_MS, threadId, holder);
    } catch {
      // A busy file: the next renewal (a third of the lease later) tries again.
    }
  }
}

/** How long a lock row stays valid without renewal: what a holder that died costs the next caller. */
const LEASE_MS = 10_000;
/** How long a caller waits for a held lock before failing. */
const WAIT_MS = 30_000;
