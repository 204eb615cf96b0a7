import { AsyncLocalStorage } from "node:async_hooks";
import { KeyedMutex, type Storage } from "@agent-server/core";

/** One thread's lock held by the current async context; inactive once its section has ended. */
interface HeldLock {
  threadId: string;
  active: boolean;
}

/**
 * The engine's per-thread critical sections, across processes: `Storage.withThreadLock` (PostgreSQL's
 * advisory lock, SQLite's lock row), or — for a driver without it — a lock of this process only. Short
 * sections only (admission, cancel, A2A resume checks, thread copy/prune/delete); a run's execution is
 * never under it.
 *
 * Reentrant within one async context: admission runs inside the A2A resume check's section, and a cancel
 * inside admission's (`interrupt` / `rollback` strategies), on the same thread. The storage lock is not
 * reentrant (a second connection would wait for the first forever), so the context remembers which
 * threads it holds. Work the section starts and leaves running (a worker pool pump, a waiter) inherits
 * that memory, so a lock is marked inactive as soon as its section ends.
 */
export class ThreadLock {
  private readonly held = new AsyncLocalStorage<readonly HeldLock[]>();
  private readonly local = new KeyedMutex();

  constructor(private readonly storage: Storage) {}

  run<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const holding = (this.held.getStore() ?? []).filter((lock) => lock.active);
    if (holding.some((lock) => lock.threadId === threadId)) return fn();
    const section = async () => {
      const lock: HeldLock = { threadId, active: true };
      try {
        return await this.held.run([...holding, lock], fn);
      } finally {
        lock.active = false;
      }
    };
    return this.storage.withThreadLock ? this.storage.withThreadLock(threadId, section) : this.local.run(threadId, section);
  }

  /** Runs `fn` outside any section (background work started from one must not look like it holds it). */
  outside<T>(fn: () => T): T {
    return this.held.exit(fn);
  }
}
