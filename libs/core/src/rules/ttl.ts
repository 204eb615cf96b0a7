/**
 * Time-to-live rules shared by every driver (langgraph.json `checkpointer.ttl` and `store.ttl`, a thread's
 * `ttl`, a store item's `ttl`). Durations are minutes, as on the Python Agent Server; fractions are allowed
 * (`0.05` = 3 s). Drivers store what these functions compute; SQL drivers state the same rule in SQL.
 */

/** What a thread's sweep does: `delete` takes the thread with its runs and checkpoints; `keep_latest` keeps the thread and its latest checkpoint. */
export type ThreadTtlStrategy = "delete" | "keep_latest";

/** A thread's time-to-live: swept `minutes` after its last update (creation, a run starting or ending, a state update, a patch). */
export interface ThreadTtl {
  strategy: ThreadTtlStrategy;
  minutes: number;
}

/** A thread the sweep may take: its TTL has run out and no run of it is pending or running. */
export interface ExpiredThread {
  thread_id: string;
  strategy: ThreadTtlStrategy;
}

/** The largest TTL accepted (100 years, in minutes): beyond it a date is not representable the same way everywhere. */
export const MAX_TTL_MINUTES = 100 * 365 * 24 * 60;

/** A TTL in minutes is a finite number above 0 and at most `MAX_TTL_MINUTES`. */
export function isTtlMinutes(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_TTL_MINUTES;
}

/** `from` (ISO-8601) plus `minutes`, as an ISO-8601 UTC string with milliseconds. */
export function ttlExpiresAt(from: string, minutes: number): string {
  return new Date(Date.parse(from) + Math.round(minutes * 60_000)).toISOString();
}

/** When a thread with `ttl` last updated at `updatedAt` expires; null without a TTL. */
export function threadExpiresAt(updatedAt: string, ttl: ThreadTtl | null | undefined): string | null {
  return ttl ? ttlExpiresAt(updatedAt, ttl.minutes) : null;
}

/** Expired at `now`: an expiry that is not after `now`. No expiry never expires. */
export function isExpired(expiresAt: string | null | undefined, now: string): boolean {
  return expiresAt !== null && expiresAt !== undefined && Date.parse(expiresAt) <= Date.parse(now);
}
