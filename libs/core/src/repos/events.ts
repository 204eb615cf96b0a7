import type { StoredEvent } from "../model.js";

/** Stream events of `stream_resumable` runs, kept for replay after `Last-Event-ID` until they expire. */
export interface EventRepo {
  /** Appends one event; ids increase within a run (decimal integer strings). */
  append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent>;
  /** Unexpired events in append order, after the given id when one is given. */
  list(runId: string, options?: { after?: string; limit?: number }): Promise<StoredEvent[]>;
  /** Removes events whose expiry is before `now`; returns how many. */
  deleteExpired(now: string): Promise<number>;
  deleteForRun(runId: string): Promise<number>;
}
