import { nowIso, type Storage } from "@agent-server/core";
import type { TtlOptions } from "../config/ttl.js";

/** Node's timers fire at once past 2^31 - 1 ms (~24.8 days): longer intervals are cut to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a sweep round removed: threads deleted, threads trimmed to their latest checkpoint, store items deleted. */
export type TtlSweepKind = "thread_deleted" | "thread_trimmed" | "store_item";

export interface TtlSweepHooks {
  /** Runs `fn` under the thread's lock across processes (the same section as `DELETE /threads/{id}`). */
  withThreadLock<T>(threadId: string, fn: () => Promise<T>): Promise<T>;
  /** Drops a deleted thread's protocol event log (keyed by thread, so the drivers' run cascade misses it). */
  deleteThreadEvents(threadId: string): Promise<unknown>;
  /** One call per round that removed something. */
  swept?(kind: "threads" | "store", counts: Partial<Record<TtlSweepKind, number>>): void;
  failed(task: "ttl-threads" | "ttl-store", error: unknown): void;
}

/**
 * The TTL sweeps: every `sweepIntervalMs`, threads past their TTL (at most `sweepLimit` a round, threads
 * with a pending or running run skipped) are deleted or trimmed by their strategy, and every store
 * interval, expired store items are deleted (at most `sweepLimit`). Several processes may sweep one
 * database: each thread is re-checked and swept atomically by the driver under the thread's lock, and a
 * store item is deleted once, so nothing is swept twice. A driver without the optional sweep methods is
 * not swept.
 */
export class TtlSweeper {
  private timers: NodeJS.Timeout[] = [];
  private rounds = new Set<Promise<unknown>>();

  constructor(
    private readonly storage: Storage,
    private readonly options: TtlOptions,
    private readonly hooks: TtlSweepHooks,
  ) {}

  start(): void {
    this.stopTimers();
    if (this.storage.threads.listExpired && this.storage.threads.sweep) {
      this.every(this.options.threads.sweepIntervalMs, () => this.sweepThreads(), "ttl-threads");
    }
    if (this.storage.store.sweepExpired) {
      this.every(this.options.store.sweepIntervalMs, () => this.sweepStore(), "ttl-store");
    }
  }

  /** Stops the timers and waits for a round under way. */
  async stop(): Promise<void> {
    this.stopTimers();
    await Promise.allSettled([...this.rounds]);
  }

  /** One thread round as of `now` (default: now; tests move it instead of sleeping); returns what it removed. */
  async sweepThreads(now?: string): Promise<Partial<Record<TtlSweepKind, number>>> {
    const { listExpired, sweep } = this.storage.threads;
    if (!listExpired || !sweep) return {};
    const counts: Partial<Record<TtlSweepKind, number>> = {};
    for (const { thread_id } of await listExpired.call(this.storage.threads, now ?? nowIso(), this.options.threads.sweepLimit)) {
      // The same section as a thread delete: no run is admitted to it meanwhile, anywhere.
      const done = await this.hooks.withThreadLock(thread_id, async () => {
        const strategy = await sweep.call(this.storage.threads, thread_id, now ?? nowIso());
        if (strategy === "delete") await this.hooks.deleteThreadEvents(thread_id);
        return strategy;
      });
      if (done === null) continue;
      const kind = done === "delete" ? "thread_deleted" : "thread_trimmed";
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    if (Object.keys(counts).length > 0) this.hooks.swept?.("threads", counts);
    return counts;
  }

  /** One store round as of `now` (default: now); returns how many items it deleted. */
  async sweepStore(now?: string): Promise<number> {
    const sweepExpired = this.storage.store.sweepExpired;
    if (!sweepExpired) return 0;
    const deleted = await sweepExpired.call(this.storage.store, now ?? nowIso(), this.options.store.sweepLimit);
    if (deleted > 0) this.hooks.swept?.("store", { store_item: deleted });
    return deleted;
  }

  private every(ms: number, round: () => Promise<unknown>, task: "ttl-threads" | "ttl-store"): void {
    let running = false;
    const timer = setInterval(
      () => {
        if (running) return; // a slow round is not overlapped by the next
        running = true;
        const done = round()
          .catch((error: unknown) => this.hooks.failed(task, error))
          .finally(() => {
            running = false;
            this.rounds.delete(done);
          });
        this.rounds.add(done);
      },
      Math.min(MAX_TIMER_MS, Math.max(10, ms)),
    );
    timer.unref?.();
    this.timers.push(timer);
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}
