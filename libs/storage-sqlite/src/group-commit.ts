import { AsyncResource } from "node:async_hooks";
import { tracingEnabled } from "@agent-server/core";
import type { Db } from "./db.js";

interface QueuedWrite {
  apply: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that share commits. Each commit costs SQLite a WAL append and its locks, whatever it holds, and
 * a graph step makes several small writes (a checkpoint, its pending writes) while other runs make
 * theirs: writes queued in one event-loop turn are applied in order in one transaction, and each
 * promise resolves once that transaction has committed, as if the write had committed alone. A write
 * that throws fails only itself: the batch is then applied write by write. With tracing on, each write is
 * applied in its own caller's context, so its statement's span joins that caller's trace, not the trace
 * of whichever write happened to open the batch.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];

  constructor(private readonly db: Db) {}

  write(write: () => void): Promise<void> {
    const apply = tracingEnabled() ? AsyncResource.bind(write) : write;
    return new Promise((resolve, reject) => {
      if (this.queue.push({ apply, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (the driver closes: nothing may be left for a later turn). */
  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    try {
      this.db.transaction(() => {
        for (const write of batch) write.apply();
      })();
    } catch {
      for (const write of batch) {
        try {
          this.db.transaction(write.apply)();
          write.resolve();
        } catch (error) {
          write.reject(error);
        }
      }
      return;
    }
    for (const write of batch) write.resolve();
  }
}
