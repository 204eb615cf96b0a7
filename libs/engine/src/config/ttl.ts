import { z } from "zod";
import { MAX_TTL_MINUTES, type ThreadTtl, type ThreadTtlStrategy } from "@agent-server/core";

/** Minutes as the Python Agent Server takes them; fractions are accepted (`0.05` = 3 s). */
const minutes = (key: string) =>
  z
    .number({ error: `${key} must be a number of minutes` })
    .positive(`${key} must be more than 0 minutes`)
    .max(MAX_TTL_MINUTES, `${key} must be at most ${MAX_TTL_MINUTES} minutes (100 years)`);

/**
 * langgraph.json `checkpointer.ttl`: what happens to a thread `default_ttl` minutes after its last update
 * (`strategy`), how often expired threads are looked for and how many one round takes.
 */
export const CheckpointerTtlSchema = z.looseObject({
  strategy: z.enum(["delete", "keep_latest"], { error: 'strategy must be "delete" or "keep_latest"' }).optional(),
  default_ttl: minutes("default_ttl").nullish(),
  sweep_interval_minutes: minutes("sweep_interval_minutes").nullish(),
  sweep_limit: z.number().int("sweep_limit must be an integer").positive("sweep_limit must be at least 1").nullish(),
});

/** langgraph.json `store.ttl`: the TTL of a put that names none, whether reads refresh by default, the sweep interval. */
export const StoreTtlSchema = z.looseObject({
  default_ttl: minutes("default_ttl").nullish(),
  refresh_on_read: z.boolean({ error: "refresh_on_read must be true or false" }).nullish(),
  sweep_interval_minutes: minutes("sweep_interval_minutes").nullish(),
});

/** The engine's TTL settings (`EngineOptions.ttl`), from langgraph.json by `ttlOptions`. */
export interface TtlOptions {
  threads: {
    /** The strategy of a thread created with a `ttl` that names none, and of `defaultMinutes`. */
    strategy: ThreadTtlStrategy;
    /** The TTL of a thread created without one; absent: such threads never expire. */
    defaultMinutes?: number;
    sweepIntervalMs: number;
    sweepLimit: number;
  };
  store: {
    /** The TTL of a put without one; absent: such items never expire. */
    defaultMinutes?: number;
    /** Whether a read without `refresh_ttl` refreshes (`refresh_on_read`, default true). */
    refreshOnRead: boolean;
    sweepIntervalMs: number;
    sweepLimit: number;
  };
}

/** The Python server's defaults: threads swept every 5 minutes, 1000 a round; store items every 60 minutes. */
export const DEFAULT_THREAD_SWEEP_MINUTES = 5;
export const DEFAULT_THREAD_SWEEP_LIMIT = 1000;
export const DEFAULT_STORE_SWEEP_MINUTES = 60;
export const STORE_SWEEP_LIMIT = 1000;

export function ttlOptions(config: {
  checkpointer?: { ttl?: z.infer<typeof CheckpointerTtlSchema> | null } | null;
  store?: { ttl?: z.infer<typeof StoreTtlSchema> | null } | null;
}): TtlOptions {
  const threads = config.checkpointer?.ttl ?? {};
  const store = config.store?.ttl ?? {};
  return {
    threads: {
      strategy: threads.strategy ?? "delete",
      ...(threads.default_ttl ? { defaultMinutes: threads.default_ttl } : {}),
      sweepIntervalMs: (threads.sweep_interval_minutes ?? DEFAULT_THREAD_SWEEP_MINUTES) * 60_000,
      sweepLimit: threads.sweep_limit ?? DEFAULT_THREAD_SWEEP_LIMIT,
    },
    store: {
      ...(store.default_ttl ? { defaultMinutes: store.default_ttl } : {}),
      refreshOnRead: store.refresh_on_read ?? true,
      sweepIntervalMs: (store.sweep_interval_minutes ?? DEFAULT_STORE_SWEEP_MINUTES) * 60_000,
      sweepLimit: STORE_SWEEP_LIMIT,
    },
  };
}

/** A thread's TTL from a request's `ttl` (`{ strategy?, ttl }` in minutes), else the configured default; undefined: none. */
export function threadTtlFor(
  options: TtlOptions["threads"],
  requested?: { strategy?: ThreadTtlStrategy | null; ttl: number } | null,
): ThreadTtl | undefined {
  if (requested) return { strategy: requested.strategy ?? options.strategy, minutes: requested.ttl };
  return options.defaultMinutes ? { strategy: options.strategy, minutes: options.defaultMinutes } : undefined;
}
