import { AsyncResource } from "node:async_hooks";
import { tracingEnabled } from "@agent-server/core";
import type { Db } from "./db.js";

interface QueuedWrite {
  apply: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  failed?: (error: unknown) => void;
}

/**
 * Writes that share commits. Each commit costs SQLite a WAL append of every page it changed and its
 * locks, whatever it holds; concurrent runs change many of the same pages (the newest leaf of each table
 * and index keyed by time or sequence). Writes queued in one event-loop turn — runs admitted, checkpoints
 * and pending writes of graph steps, settlements — are applied in order in one IMMEDIATE transaction,
 * and each promise resolves with its write's value once that transaction has committed, as if the write
 * had committed alone. A write that throws fails only itself: the batch is rolled back and applied write
 * by write, each in its own transaction, so a write may run twice and must not act outside the database.
 * With tracing on, each write is applied in its own caller's context, so its statement's span joins
 * that caller's trace, not the trace of whichever write happened to open the batch.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];

  constructor(private readonly db: Db) {}

  /**
   * Queues `write`; `failed` is told at once (before any later write of the queue is applied) when the
   * write failed for good, not when its batch was merely rolled back to be applied write by write.
   */
  write<T>(write: () => T, failed?: (error: unknown) => void): Promise<T> {
    const apply = tracingEnabled() ? AsyncResource.bind(write) : write;
    return new Promise<T>((resolve, reject) => {
      if (this.queue.push({ apply, resolve: resolve as (value: unknown) => void, reject, failed }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (the driver closes: nothing may be left for a later turn). */
  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let values: unknown[];
    try {
      values = this.db.transaction(() => batch.map((write) => write.apply())).immediate();
    } catch {
      for (const write of batch) {
        try {
          write.resolve(this.db.transaction(write.apply).immediate());
        } catch (error) {
          write.failed?.(error);
          write.reject(error);
        }
      }
      return;
    }
    batch.forEach((write, i) => write.resolve(values[i]));
  }
}
