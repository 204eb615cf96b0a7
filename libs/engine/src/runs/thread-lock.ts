import { KeyedMutex, type Storage } from "@agent-server/core";

/**
 * A thread's lock as held by one section (`Engine.withThreadLock`, `withThreadExecution`, admission).
 * Calls the section makes on the same thread pass it on (`heldLock`) so they do not wait for the lock
 * their own caller holds. Inactive once the section has ended: work it started and left running
 * (a waiter, a pump) that still has it takes the lock again like anyone else.
 */
export interface HeldThreadLock {
  readonly threadId: string;
  readonly active: boolean;
}

/**
 * The engine's per-thread critical sections, across processes: `Storage.withThreadLock` (PostgreSQL's
 * advisory lock, SQLite's lock row), or — for a driver without it — a lock of this process only. Short
 * sections only (admission, cancel, A2A resume checks, thread copy/prune/delete); a run's execution is
 * never under it.
 *
 * Reentrant through the held lock passed explicitly: admission runs inside the A2A resume check's section,
 * and a cancel inside admission's (`interrupt` / `rollback` strategies) or a thread delete's, on the same
 * thread. The storage lock is not reentrant (a second connection would wait for the first forever). The
 * held lock is a parameter, not an AsyncLocalStorage: on Node 20 every enabled one adds work and an
 * allocation to every promise the process makes, and a long thread's checkpoint load makes thousands
 * (docs/benchmarks.md).
 */
export class ThreadLock {
  private readonly local = new KeyedMutex();

  constructor(private readonly storage: Storage) {}

  run<T>(threadId: string, fn: (lock: HeldThreadLock) => Promise<T>, held?: HeldThreadLock): Promise<T> {
    if (held?.active && held.threadId === threadId) return fn(held);
    const section = async () => {
      const lock = { threadId, active: true };
      try {
        return await fn(lock);
      } finally {
        lock.active = false;
      }
    };
    return this.storage.withThreadLock ? this.storage.withThreadLock(threadId, section) : this.local.run(threadId, section);
  }
}
