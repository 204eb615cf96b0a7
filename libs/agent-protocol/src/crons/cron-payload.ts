import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, type AuthFilter, type Cron, type Metadata } from "@agent-server/core";
import { RUN_PAYLOAD_FIELDS } from "./schemas.js";

/** Timezone names that mean UTC. Schedules are evaluated in UTC (the engine's `nextRunDate`). */
const UTC_NAMES = new Set(["utc", "etc/utc", "gmt", "etc/gmt", "z", "zulu", "universal", "etc/universal"]);

/**
 * Schedules are standard 5-field cron expressions (or croner's "@daily"-style nicknames). croner would
 * also take a seconds field (and a year field); a per-second schedule is not what the API promises and
 * would flood the queue, so those are refused.
 */
export function checkSchedule(schedule: string): void {
  const trimmed = schedule.trim();
  if (trimmed.startsWith("@")) return;
  const fields = trimmed.split(/\s+/).length;
  if (fields !== 5) {
    throw new HTTPException(422, {
      message: `schedule: expected 5 fields (minute hour day-of-month month day-of-week), got ${fields}: "${schedule}"`,
    });
  }
}

/**
 * The SDK lets a client name a timezone for the schedule. The scheduler evaluates every schedule in UTC,
 * so another zone is refused rather than silently run at the wrong hour.
 */
export function checkTimezone(timezone: string | null | undefined): void {
  if (timezone && !UTC_NAMES.has(timezone.toLowerCase())) {
    throw new HTTPException(422, { message: `timezone: only UTC schedules are supported, got "${timezone}"` });
  }
}

/**
 * The run-creation body each tick submits (the engine's scheduler spreads it into the run request).
 * For a stateless cron, `on_completion` carries `on_run_completed`: whether the tick's new thread is
 * deleted when its run ends.
 */
export function runPayload(
  body: Record<string, unknown>,
  options: { base?: Record<string, unknown>; stateless: boolean; onRunCompleted: "delete" | "keep" },
): Record<string, unknown> {
  const payload: Record<string, unknown> = { ...options.base };
  for (const field of RUN_PAYLOAD_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) payload[field] = body[field];
  }
  if (options.stateless) payload.on_completion = options.onRunCompleted;
  else delete payload.on_completion;
  return payload;
}

/** A cron as the SDK's `Cron` type reads it: every schedule is a UTC schedule, reported as no timezone. */
export function toWireCron(cron: Cron): Record<string, unknown> {
  return { ...cron, timezone: null };
}

export function pickFields(row: Record<string, unknown>, select: readonly string[] | null | undefined): Record<string, unknown> {
  if (!select?.length) return row;
  const out = Object.fromEntries(Object.entries(row).filter(([key]) => select.includes(key)));
  if (select.includes("now")) out.now = new Date().toISOString();
  return out;
}

/**
 * Combines the request's exact-match metadata with the caller's auth filter into one repository filter
 * (both are ANDed key by key). On a key both name, the request's value must itself satisfy the auth
 * condition, else nothing can match: null.
 */
export function combineFilters(auth: AuthFilter | undefined, metadata: Metadata | null | undefined): AuthFilter | undefined | null {
  if (!metadata || Object.keys(metadata).length === 0) return auth;
  const combined: AuthFilter = { ...auth };
  for (const [key, value] of Object.entries(metadata)) {
    if (auth && key in auth && !matchesAuthFilter({ [key]: value }, { [key]: auth[key] })) return null;
    // An object value would read as an operator ({$eq: ...}); wrap it so it is compared as a value.
    combined[key] = value !== null && typeof value === "object" && !Array.isArray(value) ? { $eq: value } : value;
  }
  return combined;
}
