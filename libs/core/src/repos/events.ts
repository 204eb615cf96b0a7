import type { StoredEvent } from "../model.js";

/** Stream events of `stream_resumable` runs, kept for replay after `Last-Event-ID` until they expire. */
export interface EventRepo {
  /** Appends one event; ids increase within a run (decimal integer strings). */
  append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent>;
  /**
   * Appends several events of one stream as one write, in order: their ids follow each other and come
   * after every id appended before. Optional for drivers of one's own (the server then appends one by one).
   */
  appendMany?(runId: string, events: Array<{ event: string; data: unknown }>, options: { ttlMs: number }): Promise<StoredEvent[]>;
  /** Unexpired events in append order, after the given id when one is given. */
  list(runId: string, options?: { after?: string; limit?: number }): Promise<StoredEvent[]>;
  /** Removes events whose expiry is before `now`; returns how many. */
  deleteExpired(now: string): Promise<number>;
  /**
   * The id of the latest event appended for `runId` (decimal text), null when none was. One indexed read.
   * Optional for drivers of one's own: without it, thread streaming protocol commands answer without
   * `meta.applied_through_seq`.
   */
  lastId?(runId: string): Promise<string | null>;
  deleteForRun(runId: string): Promise<number>;
}
